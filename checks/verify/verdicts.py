"""Verdicts of ``duelbound verify``, computed from the judge's records only.

Four outcomes per check (:data:`ORDER`): PASS, INCONCLUSIVE ("not enough data at
this T"), WARN, FAIL.  FAIL needs positive evidence — a protocol error, a claim
below C*, non-determinism, or regret that is *established* to grow linearly: late
duels spent on pairs whose outcome the algorithm has already sampled far beyond
what any consistent algorithm needs (:func:`.consistency.consistency_check`).  Absence
of convergence at a short horizon is INCONCLUSIVE, with the horizon that would decide.

Statistics use every run, including runs cut short by a timeout or a crash (their
trajectory up to the last duel); each check says how many runs it used.  A check
computed on fewer runs than were asked for (or on shorter horizons) is never PASS.

The rules by family: :mod:`.check` (the :class:`Check` type, :data:`ORDER`, C*),
:mod:`.consistency` (growth: linear, stuck, starved, share of runs, faster than log T),
:mod:`.comparison` (lower bound, claimed, reference); here the protocol check, the checks
of one matrix and the rules that act on checks already made.  Every public name of the
three is importable from this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from .check import ORDER, Check, CStar, c_star, worst
from .comparison import (
    POOLED_ALPHA,
    RATIO_WARN,
    claimed_check,
    pooled_reference_check,
    reference_check,
    slope_check,
)
from .consistency import (
    GROWTH_OK,
    LATE_OK,
    LEARNING,
    LINEAR_RATIO,
    MIN_RUNS_ALL,
    RESOLVE,
    RUN_RATE_NULL,
    SHARE_ALPHA,
    SHARE_LOOKS,
    STUCK_FAIL,
    STUCK_RUN,
    SUPERLOG_RATIO,
    consistency_check,
    doubling_ratio,
    growth_ratio,
    log_doubling,
    nice_horizon,
    regret_at,
    share_p_value,
    starved,
)
from .judge import PROTOCOL_ERRORS
from .record import NOT_RUN

__all__ = ["ORDER", "Check", "CStar", "c_star", "worst", "protocol_check", "consistency_check",
           "slope_check", "claimed_check", "reference_check", "pooled_reference_check",
           "matrix_checks",
           "suite_checks", "confirmed_linear", "beyond_budget", "is_linear", "LINEAR_RULES",
           "nice_horizon", "growth_ratio", "doubling_ratio", "regret_at", "starved",
           "STUCK_FAIL", "RESOLVE", "LINEAR_RATIO", "STUCK_RUN", "SUPERLOG_RATIO",
           "RUN_RATE_NULL", "SHARE_ALPHA", "SHARE_LOOKS", "log_doubling",
           "share_p_value", "MORE_RUNS_RULES", "SUPERLOG_RULES", "to_confirm", "wants_runs",
           "LEARNING", "LATE_OK", "GROWTH_OK", "MIN_RUNS_ALL", "RATIO_WARN", "POOLED_ALPHA"]


# --------------------------------------------------------------------------------------
# The protocol check: the judge's record of every run, the replay included.
# --------------------------------------------------------------------------------------

def _error_counts(every: list) -> tuple[dict[str, int], dict[str, Any] | None]:
    """Errors per kind over ``every`` run, and the first that is the algorithm's fault
    (a time limit is not: a slow run is INCONCLUSIVE)."""
    counts: dict[str, int] = {}
    first: dict[str, Any] | None = None
    for r in every:
        for kind, n in (r.error_counts or {}).items():
            counts[kind] = counts.get(kind, 0) + n
        if r.error and r.error.get("kind") not in NOT_RUN:
            counts.setdefault(r.error["kind"], 1)
        if first is None and r.error and r.error.get("kind") in PROTOCOL_ERRORS \
                and r.error["kind"] != "timeout":
            first = r.error
    return counts, first


def protocol_check(runs: list, twin, T: int) -> Check:
    """Did every run keep the protocol?  FAIL on the algorithm's first protocol error,
    processes left behind, a replay (same seeds) with another duel sequence, or a run
    with no duel; INCONCLUSIVE on an environment error, a time limit or runs not made."""
    every = runs + ([twin] if twin is not None else [])
    counts, first = _error_counts(every)
    leftovers = sum(r.leftover_processes for r in every)
    if leftovers:
        counts["leftover-processes"] = leftovers
    stat: dict[str, Any] = {"error_counts": counts, "runs": len(runs),
                            "duels": int(sum(r.steps for r in runs))}
    env = next((r.environment_error for r in every if r.environment_error), None)
    if first is not None:
        stat["first_error"] = first
        extra = ", ".join(f"{n} × {k}" for k, n in sorted(counts.items()))
        return Check("protocol", "FAIL", f"{first['message']} (step {first.get('step')}); "
                     f"in all runs: {extra}", stat, rule="protocol-error")
    if leftovers:
        return Check("protocol", "FAIL", f"{leftovers} process(es) the algorithm started were "
                     "still running after its runs (killed)", stat, rule="leftover-processes")
    if env is not None:
        stat["environment_error"] = env
        return Check("protocol", "INCONCLUSIVE", "environment error, not the algorithm: "
                     f"{env['message']}", stat, rule="environment-error")
    if twin is not None and twin.ok and runs and runs[0].ok and runs[0].pairs_sha256:
        stat["deterministic"] = twin.pairs_sha256 == runs[0].pairs_sha256
        if not stat["deterministic"]:
            return Check("protocol", "FAIL",
                         "non-deterministic: the same seed and environment gave a different "
                         "duel sequence", stat, rule="non-deterministic")
    return _protocol_without_error(runs, every, T, stat)


def _not_run_summary(skipped: list) -> str:
    """How many runs were cut, stopped or never started, each kind counted on its own
    (the messages of cut runs differ only in their duel counts)."""
    groups: dict[str, int] = {}
    for r in skipped:
        msg = r.error["message"]
        if msg.startswith("cut by"):
            msg = "cut by the wall-clock budget (judged up to their last duel)"
        groups[msg] = groups.get(msg, 0) + 1
    return "; ".join(f"{n} run(s) {msg}" for msg, n in groups.items())


def _protocol_without_error(runs: list, every: list, T: int, stat: dict[str, Any]) -> Check:
    slow = [r for r in every if r.error and r.error.get("kind") == "timeout"]
    if slow:
        r = slow[0]
        stat["first_error"] = r.error
        return Check("protocol", "INCONCLUSIVE", f"{len(slow)} run(s) hit the time limit: "
                     f"{r.error['message']}", stat, rule="time-limit")
    skipped = [r for r in every if r.error and r.error.get("kind") in NOT_RUN]
    if skipped:
        return Check("protocol", "INCONCLUSIVE", _not_run_summary(skipped), stat,
                     rule="not-run")
    if not runs or any(r.steps == 0 for r in runs):
        return Check("protocol", "FAIL", "a run recorded no duel", stat, rule="no-duel")
    rate = np.median([r.duels_per_s for r in runs]) if runs else 0.0
    stat["median_duels_per_s"] = float(rate)
    return Check("protocol", "PASS", f"{len(runs)} runs × T = {T}, no protocol error"
                 f"{', deterministic' if stat.get('deterministic') else ''} "
                 f"({rate:,.0f} duels/s)", stat, rule="clean")


# --------------------------------------------------------------------------------------
# The checks of one matrix, and the rules that act on checks already made.
# --------------------------------------------------------------------------------------

#: Rules of the consistency check that say "linear at this T" (confirmed at 4T when the
#: extension budget allows: :mod:`.schedule`).
LINEAR_RULES = ("linear", "linear-per-run", "linear-confirmed")
#: Rules of the consistency check whose question is "linear in a share of runs": more
#: runs at the same horizon decide them (:mod:`.schedule`).
MORE_RUNS_RULES = ("share-undecided", "probably-linear")


#: Rules of the consistency check that say "faster than log T at this T" (confirmed at 4T
#: like the linear ones: an algorithm that knows T may still be exploring at T).
SUPERLOG_RULES = ("super-logarithmic", "super-logarithmic-confirmed")


def is_linear(check: Check) -> bool:
    """Is ``check`` a consistency FAIL by linear growth (to be confirmed at 4T)?"""
    return check.name == "consistency" and check.verdict == "FAIL" and \
        check.rule in LINEAR_RULES


def to_confirm(check: Check) -> bool:
    """Is ``check`` a growth verdict seen at one horizon, to be confirmed at 4T: a linear
    consistency FAIL or a super-logarithmic WARN?"""
    if check.rule.endswith("-confirmed"):
        return False
    return is_linear(check) or (check.name == "consistency" and check.verdict == "WARN"
                                and check.rule in SUPERLOG_RULES)


def wants_runs(check: Check) -> bool:
    """Is ``check`` undecided on "linear in a share of runs" (more runs decide it)?"""
    return check.name == "consistency" and check.rule in MORE_RUNS_RULES


def matrix_checks(M, user: list, ref: list, twin, T: int, runs: int,
                  cstar: Callable[[], CStar], reference: str | None, claimed: float | None,
                  n_matrices: int) -> list[Check]:
    """The checks of one matrix from its runs (``user``, the reference's ``ref`` and the
    replay ``twin``): protocol, then — on runs that recorded duels — consistency, lower
    bound, claimed (with ``claimed``), reference (with ``reference``); a check on fewer
    than ``runs`` runs that reached T is never PASS.  ``cstar()`` gives the matrix's
    C* (the caller solves it once per matrix), asked for only when a run has duels."""
    checks = [protocol_check(user, twin, T)]
    with_data = [r for r in user if r.steps > 0 and r.counts]
    if with_data:
        ref_ok = [r for r in ref if r.ok]
        cs = cstar()
        cons = consistency_check(user, M, T, runs, n_matrices)   # run numbers kept
        checks.append(cons)
        checks.append(slope_check(with_data, ref_ok, cs.value, cs.error,
                                  cons.verdict == "PASS"))
        if claimed is not None:
            checks.append(claimed_check(with_data, cs.value, claimed))
        if reference:
            checks.append(reference_check(M, with_data, ref_ok, reference, T, n_matrices,
                                          cs))
    reached = sum(r.steps >= T for r in user)
    if reached < len(user):   # no survivorship bias: a statistic on a subset is never a PASS
        checks[1:] = [_partial_runs(c, reached, runs) for c in checks[1:]]
    return checks


def _partial_runs(check: Check, reached: int, runs: int) -> Check:
    if check.verdict != "PASS":
        return check
    return replace(check, verdict="INCONCLUSIVE", rule="partial-runs",
                   message=check.message + f" — only {reached} of {runs} runs reached T; "
                   "the others count up to their last duel")


def confirmed_linear(checks: list[Check], before: int, now: int) -> list[Check]:
    """Linear growth (or faster than log T) seen at T = ``before`` and again at ``now`` =
    4 ``before``: the consistency verdict is confirmed (rule ``linear-confirmed`` or
    ``super-logarithmic-confirmed``)."""
    out = []
    for c in checks:
        if to_confirm(c):
            c = replace(c, rule="linear-confirmed" if is_linear(c)
                        else "super-logarithmic-confirmed",
                        message=c.message + f" (seen at T = {before} and at T = {now}: "
                        "confirmed)")
        out.append(c)
    return out


def beyond_budget(checks: list[Check], horizon: int, next_T: int, cost: float,
                  allowed: float, extended: tuple[str, ...], more_runs: int | None = None,
                  why: str | None = None) -> list[Check]:
    """Undecided at ``horizon`` and the next stage does not run: each undecided check (one
    of ``extended``; a growth verdict seen at this T only; a share-of-runs question when
    ``more_runs`` is the number of runs that would be added) says so, with the stage and
    its estimated seconds — or ``why`` it is not run (the verdict is settled elsewhere).
    The verdicts stay."""
    nxt = f"{more_runs} more runs at T = {horizon}" if more_runs else f"T = {next_T}"
    because = f"not run: {why}" if why else \
        f"would take ~{cost:.0f} s more, beyond the budget ({allowed:g} s to extend)"
    stage = {"more_runs": more_runs, "more_runs_seconds": cost} if more_runs else \
        {"next_T": next_T, "next_T_seconds": cost}
    out = []
    for c in checks:
        if to_confirm(c):
            c = replace(c, message=c.message + f" [seen at T = {horizon} only: confirming "
                        f"at {nxt} {because}]")
        elif (c.name in extended and c.verdict == "INCONCLUSIVE") or wants_runs(c):
            c = replace(c, message=c.message + f" [undecided at T = {horizon}; {nxt} "
                        f"{because}]", statistic={**c.statistic, **stage})
        out.append(c)
    return out


def suite_checks(matrices: list[list[Check]], pooled: list, reference: str | None,
                 seed: int, any_partial: bool) -> tuple[list[Check], list[list[Check]]]:
    """The suite-level reference comparison, and what it does to the per-matrix checks:
    (suite checks, the matrices' checks).  A per-matrix reference WARN needs the suite's
    evidence (rule ``not-significant-over-suite``); the pooled check on runs that did not
    all reach T is never PASS (rule ``partial-runs``)."""
    if not reference or len(pooled) == 0:
        return [], matrices
    suite = pooled_reference_check(pooled, reference, seed=seed)
    if suite.verdict != "WARN":
        matrices = [[replace(c, verdict="PASS", rule="not-significant-over-suite",
                             message=c.message + " (not significant over the suite: no WARN)")
                     if c.name == "reference" and c.verdict == "WARN" else c for c in checks]
                    for checks in matrices]
    if any_partial and suite.verdict == "PASS":
        suite = replace(suite, verdict="INCONCLUSIVE", rule="partial-runs",
                        message=suite.message + " — on the runs that reached T only")
    return [suite], matrices
