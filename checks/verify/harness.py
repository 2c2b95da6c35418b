"""Verify anyone's dueling-bandit implementation against the theory and the simulator.

:func:`verify_algorithm` runs a user algorithm, given as ``"package.module:factory"``,
on a suite of preference matrices and reports per matrix and check one of PASS,
INCONCLUSIVE, WARN, FAIL.  It is the driver of the rooms of this package, in the order
a verification flows:

1. :mod:`.arguments` — the arguments, checked before anything runs;
2. :mod:`.judge` — the probe: the factory built once in a child, its protocol named;
3. :mod:`.suite` — the matrices (the default suite, and ones drawn from the secret seed);
4. :mod:`.runs` — per matrix the runs, each judged in a trusted worker by :mod:`.judge`
   (the algorithm in :mod:`.child`, in the sandbox of :mod:`.sandbox` and
   :mod:`.process`), each recorded as one :class:`.record.JudgedRun`;
5. :mod:`.verdicts` — every verdict rule, from the records only (:mod:`.statistics`);
6. :mod:`.schedule` — the undecided matrices again at 4T, 16T, ... within the budget;
7. :mod:`.report` — :class:`VerifyReport`, rendering itself as a table and as JSON.

Isolation
---------
The user's module is imported only in a child process started from a fresh
interpreter; this process never imports it.  The child sees K, T, its own seed and the
outcome of each duel it requests; the preference matrix, the environment's generator
(seeded from fresh secret entropy, recorded in the report for ``environment_seed=``
replays), the record of the duels and every statistic stay here.

Protocols (detected from what ``factory(K, T, seed)`` returns)
---------------------------------------------------------------
``"select"``: an object with ``select() -> (i, j)`` and ``update(i, j, i_won)``.
``"duel"``: a callable ``run(duel, T)`` that calls ``duel(i, j) -> bool`` (True iff
i won) until it is done (see :mod:`duelbound.checks.verify.adapters` for duelpy).  A bundled
algorithm name (``"ecw-rmed"``, …) runs compiled, in this process's forks.

Checks per matrix: ``protocol``, ``consistency``, ``lower bound`` (slope of R(t)
against log t vs C*), ``claimed`` (with ``claimed_coefficient``), ``reference``
(with ``reference=``), plus the suite-level ``reference (suite)`` (pooled
Hodges–Lehmann ratio).  See docs/verification.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ...theory.matrix import PreferenceMatrix
from ...theory.tournament import condorcet_winner, copeland_winners
from . import verdicts as V
from .arguments import (
    check_arguments,
    check_extend_budget,
    exec_spec,
    factory_spec,
    load_factory,
)
from .interrupts import INTERRUPTS, Interrupted
from .judge import Limits, detect_protocol, new_environment_seed
from .record import JudgedRun
from .report import (
    EXIT_CODES,
    MatrixReport,
    VerifyReport,
    condorcet_reasons,
    cut_by_budget,
    not_judged,
)
from .runs import Progress, plan_jobs, run_jobs, run_seed
from .sandbox import isolation as sandbox_isolation
from .schedule import EXTENDED_CHECKS, Schedule
from .suite import DEFAULT_MATRICES, borda_winner, generated_matrices, suite
from .verdicts import Check

__all__ = ["Interrupted", "exec_spec", "generated_matrices", "DEFAULT_MATRICES", "DEFAULT_T",
           "DEFAULT_RUNS", "DEFAULT_EXTEND_BUDGET", "Check", "JudgedRun", "MatrixReport",
           "VerifyReport", "verify_algorithm", "load_factory", "factory_spec", "EXIT_CODES"]

DEFAULT_T = 20_000
DEFAULT_RUNS = 10
#: Seconds for sequential horizons after the first stage (docs/verification.md).
DEFAULT_EXTEND_BUDGET = 240.0


def verify_algorithm(factory: Callable | str | None, matrices: Sequence[Any] | None = None, *,
           T: int = DEFAULT_T, runs: int = DEFAULT_RUNS, reference: str | None = None,
           protocol: str = "auto", claimed_coefficient: float | None = None,
           time_limit: float = 300.0, hang_timeout: float = 20.0,
           memory_limit: float = 4.0, budget: float = 1800.0, seed: int = 0,
           workers: int | None = None, name: str | None = None,
           environment_seed: int | None = None, progress: bool = False,
           generated: int | None = None, relabel: bool = True,
           startup_timeout: float | None = None,
           command: str | Sequence[str] | None = None,
           extend_budget: float | None = None, isolation: str = "sandbox") -> VerifyReport:
    """Verify a dueling-bandit algorithm on a suite of matrices.

    Parameters
    ----------
    factory : str or callable
        ``"package.module:factory"`` (imported only in the judge's child process), a
        bundled algorithm name, or a module-level callable (converted to its name).
        ``factory(K, T, seed)`` returns a select/update object or a ``run(duel, T)``
        callable (detected).
    matrices : sequence, optional
        PreferenceMatrix objects, bundled example names or arrays; default
        :data:`DEFAULT_MATRICES`.
    T, runs : int
        Horizon and runs per matrix.  Run r of matrix m gives the factory the seed
        s = SeedSequence([seed, m, r]).
    reference : str, optional
        Bundled algorithm for the two-sample comparison (its runs use the seeds s).
    protocol : {"auto", "select", "duel"}
    claimed_coefficient : float, optional
        The coefficient of log T the implementation claims (komiyama convention).
    time_limit, hang_timeout : float
        Seconds per run; seconds without a request.  The run is killed and reported.
    memory_limit : float
        GiB of address space of the algorithm's process.
    budget : float
        Wall-clock seconds for everything, a hard limit: at the budget the runs still
        running are stopped (their record up to the last duel kept and judged), runs
        not started are not run, a later stage cut keeps the matrix's earlier report;
        ``VerifyReport.not_judged`` names what was not judged and the verdict is never
        PASS then.
    workers : int, optional
        Runs in parallel (default: half the CPUs, at least 1: each run keeps the
        algorithm's process and its judge busy).
    environment_seed : int, optional
        Replay: the master seed of the environments (default: fresh secret entropy;
        either way it is in the report).
    generated : int, optional
        Matrices drawn from the secret environment seed and added to the suite
        (:func:`generated_matrices`); default 1 with the default suite, 0 when
        ``matrices`` is given.
    relabel : bool
        Present each run's arms under a secret relabeling drawn from its environment
        seed (default; the report is in the matrix's labels).  ``False`` only to debug.
    command : str or sequence of str, optional
        Instead of ``factory``: a program in any language speaking the line protocol
        (docs/verification.md, "Any language"), run in the same sandbox, judged alike.
    extend_budget : float, optional
        Sequential horizons (default :data:`DEFAULT_EXTEND_BUDGET`): wall-clock seconds
        allowed, after the first stage, for
        re-running the matrices whose consistency or lower-bound check is INCONCLUSIVE at
        4T, then 16T, ... (each stage only if its estimated cost fits); the report says
        which T decided each matrix (``MatrixReport.horizon``).  0 disables.
    startup_timeout : float, optional
        Seconds to import the module and build the factory (default max(60, 3 ×
        ``hang_timeout``)); beyond it verification stops with a DuelboundError naming
        the start-up limit.
    isolation : {"sandbox", "process"}
        ``"sandbox"`` (default): every run in bubblewrap (:mod:`.sandbox`); a
        DuelboundError when none works here.  ``"process"``: no sandbox, for trusted
        code only — the report says that a hostile module can forge it.

    Returns
    -------
    VerifyReport
        ``.table()``, ``.to_dict()``, ``.verdict``, ``.exit_code``.

    Raises
    ------
    DuelboundError
        Bad arguments; a module that cannot be imported; a factory whose result fits
        neither protocol (one line naming both).
    """
    T, spec, kind = check_arguments(factory, T, runs, protocol, reference, command)
    if kind != "bundled":
        sandbox_isolation(isolation)   # no sandbox and not asked for process: one line
    extend = check_extend_budget(DEFAULT_EXTEND_BUDGET if extend_budget is None
                                 else extend_budget)
    master = new_environment_seed() if environment_seed is None else int(environment_seed)
    mats = suite(matrices, master, generated)
    limits = Limits(time_limit=float(time_limit), hang_timeout=float(hang_timeout),
                    startup_timeout=float(startup_timeout or max(60.0, 3 * hang_timeout)),
                    mem_bytes=int(memory_limit * 2**30), isolation=isolation)
    start = time.perf_counter()
    # the budget is hard: each judge stops its run at this moment (process.Watchdog)
    limits = replace(limits, deadline=time.monotonic() + float(budget))
    # SIGINT / SIGTERM noted from here on (the CLI installed them earlier still): each
    # phase ends early and the report says what was not judged (runs.INTERRUPTS)
    with INTERRUPTS.installed():
        detected = "bundled" if kind == "bundled" else _probe(
            spec, mats[0].K, T, run_seed(seed, 0, 0), protocol, limits)
        names = [M.name or f"matrix{i}" for i, M in enumerate(mats)]
        bar = Progress(progress, names, runs)
        judge = _MatrixJudge(mats, names, runs, reference, claimed_coefficient)
        schedule = Schedule(T, len(mats), extend, start, runs=runs, budget=budget)
        reports: dict[int, MatrixReport] = {}
        exhausted = False
        unjudged: list[str] = []
        for horizon, todo in schedule:
            INTERRUPTS.ensure()   # a library imported meanwhile may have replaced them
            bar.stage(horizon, todo, schedule.first)
            Progress.phase("runs")
            jobs = schedule.new_jobs(plan_jobs(spec, kind, mats, horizon, schedule.runs,
                                               seed, master, reference, relabel, only=todo))
            results, out_of_budget, signum = run_jobs(
                jobs, detected if detected != "bundled" else "auto", limits, budget,
                workers or max(1, (os.cpu_count() or 2) // 2), start, bar)
            INTERRUPTS.note(signum)
            exhausted = exhausted or out_of_budget
            Progress.phase("verdicts")
            stage = judge.stage(todo, results, horizon, reports)
            unjudged += not_judged(names, todo, results, horizon, reports)
            reports.update(schedule.judged(stage, reports,
                                           INTERRUPTS.signum is not None or out_of_budget))
        every = [reports[mi] for mi in range(len(mats))]
        matrices, suite_checks = (every, []) if INTERRUPTS.signum is not None else \
            _with_suite_checks(every, reference, seed)
        interrupted = INTERRUPTS.name
    return VerifyReport(
        algorithm=name or spec.replace("exec:", "exec ", 1), protocol=detected, T=T,
        runs=runs, seed=seed, reference=reference, claimed_coefficient=claimed_coefficient,
        matrices=matrices, wall_time=time.perf_counter() - start, budget_exhausted=exhausted,
        environment_seed=master, suite_checks=suite_checks,
        reasons=condorcet_reasons(matrices), environment_error=_environment_error(matrices),
        isolation=_isolation(kind, relabel, isolation), interrupted=interrupted,
        budget=float(budget), not_judged=unjudged)


def _probe(spec: str, K: int, T: int, seed: int, protocol: str, limits: Limits) -> str:
    """The protocol the factory speaks (:func:`.judge.detect_protocol`), or the one asked
    for when a signal stopped the probe (then nothing is judged)."""
    Progress.phase("probe")
    try:
        return detect_protocol(spec, K, T, seed, protocol, limits)
    except Interrupted as exc:
        INTERRUPTS.note(exc.signum)
        return protocol


class _MatrixJudge:
    """The checks of one matrix at one horizon, from its runs; C* solved once per matrix
    (the horizons of the sequential schedule share it); the runs of a matrix at a horizon
    pooled over its stages (a more-runs stage adds to those made before)."""

    def __init__(self, mats: list[PreferenceMatrix], names: list[str], runs: int,
                 reference: str | None, claimed: float | None):
        self.mats, self.names, self.runs = mats, names, runs
        self.reference, self.claimed = reference, claimed
        self.c_stars: dict[int, V.CStar] = {}
        self.pools: dict[tuple[int, int], dict[tuple, JudgedRun]] = {}

    def c_star(self, mi: int) -> V.CStar:
        """C* of matrix ``mi`` (:func:`.verdicts.c_star`), solved on the first call."""
        if mi not in self.c_stars:
            self.c_stars[mi] = V.c_star(self.mats[mi])
        return self.c_stars[mi]

    def stage(self, todo: list[int], results: dict[tuple, JudgedRun], T: int,
              reports: dict[int, MatrixReport]) -> dict[int, MatrixReport]:
        """The reports of the matrices ``todo`` at horizon ``T``.  Once a signal came
        (:data:`.interrupts.INTERRUPTS`, read before each matrix: its verdicts, C* and
        the compiled code they load, are not cut short) no verdict is computed: a matrix
        judged at an earlier horizon keeps that report, any other is reported as not
        judged, with its runs."""
        out = {}
        for mi in todo:
            INTERRUPTS.ensure()
            if INTERRUPTS.signum is None and mi in reports and cut_by_budget(results, mi):
                out[mi] = self.stage_cut(mi, results, T, reports[mi])
            elif INTERRUPTS.signum is None:
                out[mi] = self(mi, results, T, reports.get(mi))
            elif mi in reports:
                out[mi] = reports[mi]
            else:
                out[mi] = self.not_judged(mi, results, T, str(INTERRUPTS.name))
        return out

    def stage_cut(self, mi: int, results: dict[tuple, JudgedRun], T: int,
                  previous: MatrixReport) -> MatrixReport:
        """Matrix ``mi`` judged at an earlier stage, whose stage at ``T`` the budget cut:
        the earlier report stands (its runs complete; a stage cut whatever its runs showed
        is dropped whole, no survivorship), its undecided checks say the stage was cut."""
        added = sum(k[0] == "user" and k[1] == mi for k in results)
        more = added if T == previous.horizon else None
        return replace(previous, checks=V.beyond_budget(
            previous.checks, previous.horizon, T, 0.0, 0.0, EXTENDED_CHECKS, more_runs=more,
            why="its runs were cut by the wall-clock budget (--budget), not judged"))

    def not_judged(self, mi: int, results: dict[tuple, JudgedRun], T: int, signal_name: str
                   ) -> MatrixReport:
        """The report of matrix ``mi`` when a signal stopped the verification before its
        verdicts: its runs as recorded, and a protocol check INCONCLUSIVE that says so."""
        why = f"not judged: interrupted by {signal_name}"
        placeholder = {key: JudgedRun.failed(seed=run.seed, T=T, kind="interrupted",
                                             message=why)
                       for key, run in results.items() if key[1] == mi}
        report = self(mi, placeholder, T, None)
        return replace(report, runs=[results[("user", mi, r)] for r in range(self.runs)],
                       reference_runs=[results[("ref", mi, r)] for r in range(self.runs)]
                       if self.reference else [], twin=results.get(("twin", mi, 0)))

    def __call__(self, mi: int, results: dict[tuple, JudgedRun], T: int,
                 previous: MatrixReport | None) -> MatrixReport:
        M = self.mats[mi]
        pool = self.pools.setdefault((mi, T), {})
        pool.update((k, v) for k, v in results.items() if k[1] == mi)
        runs = sum(k[0] == "user" for k in pool)
        user = [pool[("user", mi, r)] for r in range(runs)]
        ref = [pool[("ref", mi, r)] for r in range(runs)] if self.reference else []
        twin = pool.get(("twin", mi, 0))
        checks = V.matrix_checks(M, user, ref, twin, T, runs, lambda: self.c_star(mi),
                                 self.reference, self.claimed, len(self.mats))
        if previous is not None and previous.horizon < T and \
                any(V.to_confirm(c) for c in previous.checks):
            checks = V.confirmed_linear(checks, previous.horizon, T)
        tried = previous.horizons_tried if previous else []
        cw = condorcet_winner(M)
        return MatrixReport(name=self.names[mi], K=M.K, sha256=M.content_hash(), runs=user,
                            checks=checks, reference_runs=ref,
                            condorcet_winner=None if cw is None else int(cw),
                            copeland_winners=[int(i) for i in copeland_winners(M)],
                            borda_winner=borda_winner(M),
                            arms=list(M.arms) if M.arms else None, twin=twin, horizon=T,
                            horizons_tried=tried + [T] if T not in tried else tried)


def _isolation(kind: str, relabel: bool, level: str) -> str:
    if kind == "bundled":
        return "bundled algorithm (compiled, trusted)"
    return (f"{sandbox_isolation(level).describe()}; "
            + ("arms secretly relabeled per run" if relabel else "arms NOT relabeled")
            + "; environment, record and verdicts in the judge")


def _pooled(m: MatrixReport) -> tuple[list, list] | None:
    """The matrix's sample for the suite's reference comparison: final regrets of the
    runs that reached the horizon, and of the reference's runs."""
    with_data = [r for r in m.runs if r.steps > 0 and r.counts]
    if not with_data:
        return None
    return ([r.final_regret["komiyama"] for r in with_data
             if r.steps == m.horizon and r.final_regret is not None],
            [r.final_regret["komiyama"] for r in m.reference_runs
             if r.ok and r.final_regret is not None])


def _with_suite_checks(reports: list[MatrixReport], reference: str | None, seed: int
                       ) -> tuple[list[MatrixReport], list[Check]]:
    """The suite-level checks over the matrices' final reports, and the reports with what
    those checks decided about the per-matrix ones."""
    pooled = [p for p in map(_pooled, reports) if p is not None] if reference else []
    any_partial = any(r.steps < m.horizon for m in reports for r in m.runs)
    suite_checks, per_matrix = V.suite_checks([m.checks for m in reports], pooled,
                                              reference, seed, any_partial)
    return [replace(m, checks=c) for m, c in zip(reports, per_matrix)], suite_checks


def _environment_error(reports: list[MatrixReport]) -> dict[str, Any] | None:
    """The first environment error of the protocol checks (the judge's machine failed)."""
    return next((m.checks[0].statistic["environment_error"] for m in reports
                 if m.checks[0].statistic.get("environment_error")), None)
