"""Verify anyone's dueling-bandit implementation against the theory and the simulator.

:func:`verify` runs a user algorithm on a suite of preference matrices, every
run in its own process (per-run time limit, global wall-clock budget), in the
reference simulator's environment (:mod:`duelbound.checks.environment`, the
same one :func:`~duelbound.checks.simulator.run_policy` and the compiled
algorithms use), and reports per matrix PASS/WARN/FAIL verdicts, each with the
statistic behind it:

``protocol``
    exceptions, out-of-range arms, more than T duels, a crash or a timeout, and
    non-determinism (run 0 is played twice with the same seed; the duel
    sequences must be identical).  Any of these: FAIL.
``non-winner share``
    share of the duels in (T/2, T] that involve an arm that is not a Copeland
    winner (binary regret), and its growth ratio
    ρ = [B(T) − B(T/2)] / [B(T/2) − B(T/4)] (≈ 1 for log-growth, 2 for linear).
``sublinear``
    least-squares fit R(t) = a + b log t + c t over the checkpoints t ≥ T/100;
    λ = c T / R(T) is the share of the final regret the linear term explains;
    FAIL needs λ > 0.7 *and* a late non-winner share > 0.05, WARN λ > 0.35.
``lower bound``
    mean R(T)/log T against C* ([K16] Theorem 2, komiyama convention): sitting
    below C* is impossible asymptotically for a consistent algorithm — WARN,
    since Theorem 2 allows −o(log T) at finite T.
``claimed``
    (with ``claimed_coefficient``) a claim below C* contradicts Theorem 2:
    FAIL; a measured R(T)/log T significantly above the claim: WARN.
``reference``
    (with ``reference=NAME``) one-sided Mann–Whitney test of the final regrets
    against the bundled algorithm on the same seeds; significantly worse
    (p ≤ 0.05) by a median ratio above 1.25: WARN.  The check also reports the
    Hodges–Lehmann ratio of the regrets with its exact 90% Mann–Whitney interval
    (:func:`regret_ratio_interval`); an interval inside [0.8, 1.25] shows the two
    *equivalent* (two one-sided tests at 5%), an interval wider than that says the
    runs are too few to tell — a PASS is then no evidence of agreement.

Protocols
---------
``"select"``: ``factory(K, T, seed)`` returns an object with ``select() -> (i, j)``
and ``update(i, j, i_won: bool)``.  ``"duel"``: ``factory(K, T, seed)`` returns a
callable ``run(duel, T)`` that calls ``duel(i, j) -> bool`` (True iff i won) until
it is done (see :mod:`duelbound.checks.adapters` for duelpy).  ``factory`` may also
be the name of a bundled algorithm (``"ecw-rmed"``, …), which then runs compiled.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing as mp
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from multiprocessing.connection import wait
from typing import Any

import numpy as np

from duelbound.theory import examples
from duelbound.theory.errors import DuelboundError
from duelbound.theory.matrix import PreferenceMatrix

__all__ = ["DEFAULT_MATRICES", "Check", "RunOutcome", "MatrixReport", "VerifyReport",
           "verify", "load_factory", "environment_seed", "mann_whitney_null_counts",
           "regret_ratio_interval"]

#: Default suite: Condorcet winner; no Condorcet winner with 3 Copeland winners
#: (L1 = 1); a unique Copeland winner that is no Condorcet winner (L1 = 1).
DEFAULT_MATRICES = ("cyclic", "multi_winner", "unique_copeland")

#: Verdict thresholds (see docs/verification.md for their calibration).
SHARE_FAIL = 0.5        # late share of non-winner duels
SHARE_WARN = 0.05
GROWTH_WARN = 1.6       # growth ratio rho of non-winner duels (1 = log, 2 = linear)
LINEAR_FAIL = 0.7       # lambda = c T / R(T)
LINEAR_WARN = 0.35
ALPHA = 0.01            # significance of the confidence intervals of R(T)/log T
REFERENCE_ALPHA = 0.05  # one-sided Mann-Whitney level (3 vs 3 runs reach p = 0.05 at best)
RATIO_WARN = 1.25       # ... and the median ratio that makes a difference worth a WARN
#: Equivalence margin of the regret ratio (the 80–125% rule of equivalence testing);
#: its 90% interval = two one-sided tests at REFERENCE_ALPHA.
EQUIVALENCE = (1 / RATIO_WARN, RATIO_WARN)

_ORDER = {"PASS": 0, "WARN": 1, "FAIL": 2}


@dataclass
class Check:
    """One verdict with the statistic behind it."""

    name: str
    verdict: str
    message: str
    statistic: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class RunOutcome:
    """What one run (one process) produced."""

    seed: int
    ok: bool
    error: dict[str, Any] | None = None
    final_regret: dict[str, float] | None = None
    checkpoints: list[int] | None = None
    regret: dict[str, list[float]] | None = None
    steps: int = 0
    pairs_sha256: str = ""
    wall_time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class MatrixReport:
    """Runs and checks on one matrix."""

    name: str
    K: int
    sha256: str
    runs: list[RunOutcome]
    checks: list[Check]
    reference_runs: list[RunOutcome] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return max((c.verdict for c in self.checks), key=_ORDER.get, default="PASS")

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "K": self.K, "sha256": self.sha256, "verdict": self.verdict,
                "checks": [c.to_dict() for c in self.checks],
                "runs": [r.to_dict() for r in self.runs],
                "reference_runs": [r.to_dict() for r in self.reference_runs]}


@dataclass
class VerifyReport:
    """Result of :func:`verify`."""

    algorithm: str
    protocol: str
    T: int
    runs: int
    seed: int
    reference: str | None
    claimed_coefficient: float | None
    matrices: list[MatrixReport]
    wall_time: float
    budget_exhausted: bool = False

    @property
    def verdict(self) -> str:
        return max((m.verdict for m in self.matrices), key=_ORDER.get, default="PASS")

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "matrices"}
        out["verdict"] = self.verdict
        out["matrices"] = [m.to_dict() for m in self.matrices]
        return out

    def table(self) -> str:
        """Plain-text table: one line per (matrix, check)."""
        head = f"{'matrix':<18} {'check':<17} {'verdict':<7} statistic"
        lines = [f"verify {self.algorithm} (protocol {self.protocol}, T = {self.T}, "
                 f"runs = {self.runs}, seed = {self.seed})", head, "-" * 78]
        for m in self.matrices:
            for c in m.checks:
                lines.append(f"{m.name:<18} {c.name:<17} {c.verdict:<7} {c.message}")
        lines.append("-" * 78)
        lines.append(f"overall: {self.verdict}  ({self.wall_time:.1f} s"
                     f"{', budget exhausted' if self.budget_exhausted else ''})")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------
# One run, executed in a child process.
# --------------------------------------------------------------------------------------

class _ProtocolViolation(Exception):
    def __init__(self, kind: str, step: int, message: str):
        super().__init__(message)
        self.kind, self.step = kind, step


class _CheckedPolicy:
    """Wraps a select/update object: validates every pair and records the step."""

    def __init__(self, policy: Any, K: int):
        self.policy, self.K, self.step = policy, K, 0

    def select(self):
        self.step += 1
        try:
            pair = self.policy.select()
        except Exception as exc:
            raise _ProtocolViolation("exception", self.step,
                                     f"select() raised {type(exc).__name__}: {exc}") from exc
        _validate_pair(pair, self.K, self.step)
        return pair

    def update(self, i: int, j: int, won: bool) -> None:
        try:
            self.policy.update(i, j, won)
        except Exception as exc:
            raise _ProtocolViolation("exception", self.step,
                                     f"update() raised {type(exc).__name__}: {exc}") from exc


def _validate_pair(pair: Any, K: int, step: int) -> tuple[int, int]:
    try:
        i, j = pair
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (i, j))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise _ProtocolViolation("invalid-index", step,
                                 f"expected a pair of int arm indices, got {pair!r}")
    if not (0 <= i < K and 0 <= j < K):
        raise _ProtocolViolation("invalid-index", step,
                                 f"arm index out of range 0..{K - 1}: ({i}, {j})")
    return int(i), int(j)


def environment_seed(seed: int) -> int:
    """Seed of the environment's generator in a run whose factory gets ``seed``.

    Derived through ``SeedSequence([seed, 1])`` so that the environment's stream is
    independent of ``PCG64(seed)``: a user algorithm that seeds its own generator
    with ``seed`` (the natural thing to do) must not share — or be able to
    predict — the environment's coin flips.
    """
    return int(np.random.SeedSequence([int(seed), 1]).generate_state(1)[0])


def _run_duel_protocol(M: PreferenceMatrix, factory: Callable, T: int, seed: int):
    from .environment import duel, make_env, make_rng
    from .records import record_from_env

    env = make_env(M, T, log_pairs=True)
    rng = make_rng(environment_seed(seed))
    K = M.K
    state = {"step": 0}

    def duel_fn(i, j) -> bool:
        step = state["step"] + 1
        i, j = _validate_pair((i, j), K, step)
        if step > T:
            raise _ProtocolViolation("exceeded-T", step, f"duel #{step} requested with T = {T}")
        state["step"] = step
        return bool(duel(env, rng, i, j))

    algo = factory(K, T, seed)
    start = time.perf_counter()
    try:
        algo(duel_fn, T)
    except _ProtocolViolation:
        raise
    except Exception as exc:
        raise _ProtocolViolation("exception", state["step"] + 1,
                                 f"raised {type(exc).__name__}: {exc}") from exc
    if state["step"] < T:
        raise _ProtocolViolation("stopped-early", state["step"],
                                 f"returned after {state['step']} of T = {T} duels")
    return record_from_env(env, "user", seed, {}, time.perf_counter() - start,
                           M.content_hash())


def _execute(kind: str, target: Any, values: list, T: int, seed: int) -> dict[str, Any]:
    """Body of a child process: one run, returned as plain data."""
    M = PreferenceMatrix(values)
    try:
        if kind == "bundled":
            from .simulator import run_single

            rec = run_single(M, target, T, seed)
            pairs_hash = ""
            steps = T
        elif kind == "select":
            from .policy import run_policy

            proxy = _CheckedPolicy(_construct(target, M.K, T, seed), M.K)
            rec = run_policy(M, proxy, T, environment_seed(seed), log_pairs=True)
            steps = proxy.step
            pairs_hash = hashlib.sha256(rec.pairs.tobytes()).hexdigest()
        else:
            rec = _run_duel_protocol(M, target, T, seed)
            steps = T
            pairs_hash = hashlib.sha256(rec.pairs.tobytes()).hexdigest()
    except _ProtocolViolation as exc:
        return {"ok": False, "error": {"kind": exc.kind, "step": exc.step, "message": str(exc)}}
    except Exception as exc:
        return {"ok": False, "error": {"kind": "exception", "step": None,
                                       "message": f"{type(exc).__name__}: {exc}",
                                       "traceback": traceback.format_exc(limit=5)}}
    return {"ok": True, "final_regret": {k: float(v) for k, v in rec.final_regret.items()},
            "checkpoints": rec.checkpoints.tolist(),
            "regret": {k: v.tolist() for k, v in rec.regret.items()},
            "steps": steps, "pairs_sha256": pairs_hash, "wall_time": float(rec.wall_time)}


def _construct(factory: Callable, K: int, T: int, seed: int):
    try:
        return factory(K, T, seed)
    except Exception as exc:
        raise _ProtocolViolation("exception", 0,
                                 f"factory(K, T, seed) raised {type(exc).__name__}: {exc}"
                                 ) from exc


def _child(conn, kind, target, values, T, seed) -> None:
    try:
        conn.send(_execute(kind, target, values, T, seed))
    finally:
        conn.close()


@dataclass
class _Job:
    key: tuple
    kind: str
    target: Any
    values: list
    T: int
    seed: int


def _context():
    # fork keeps user factories (lambdas, closures, classes defined in tests) usable
    # without pickling, and inherits compiled numba code.
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def _run_jobs(jobs: list[_Job], time_limit: float, budget: float, workers: int,
              start: float) -> tuple[dict[tuple, RunOutcome], bool]:
    ctx = _context()
    out: dict[tuple, RunOutcome] = {}
    pending = list(jobs)
    active: dict[Any, tuple[_Job, Any, float]] = {}
    exhausted = False
    while pending or active:
        while pending and len(active) < workers:
            if time.perf_counter() - start > budget:
                exhausted = True
                for job in pending:
                    out[job.key] = RunOutcome(job.seed, False, {
                        "kind": "budget", "step": None,
                        "message": f"not run: wall-clock budget {budget:g} s exhausted"})
                pending = []
                break
            job = pending.pop(0)
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(send, job.kind, job.target, job.values,
                                                    job.T, job.seed), daemon=True)
            proc.start()
            send.close()
            active[recv] = (job, proc, time.perf_counter())
        if not active:
            break
        ready = wait(list(active), timeout=0.2)
        now = time.perf_counter()
        for recv in list(active):
            job, proc, t0 = active[recv]
            result = None
            if recv in ready:
                try:
                    result = recv.recv()
                except EOFError:  # child died without answering (crash, os._exit, signal)
                    proc.join(1.0)
                    result = {"ok": False, "error": {
                        "kind": "crash", "step": None,
                        "message": f"process died (exit code {proc.exitcode})"}}
            elif now - t0 > time_limit:
                proc.kill()
                result = {"ok": False, "error": {
                    "kind": "timeout", "step": None,
                    "message": f"run exceeded the per-run time limit {time_limit:g} s"}}
            if result is not None:
                proc.join(1.0)
                recv.close()
                del active[recv]
                out[job.key] = RunOutcome(seed=job.seed, **result)
    return out, exhausted


# --------------------------------------------------------------------------------------
# Statistics and verdicts.
# --------------------------------------------------------------------------------------

def _at(ck: np.ndarray, curve: np.ndarray, t: float) -> float:
    """Cumulative value at the last checkpoint ≤ t (linear interpolation between)."""
    return float(np.interp(t, ck, curve))


def _protocol_check(runs: list[RunOutcome], twin: RunOutcome | None) -> Check:
    errors = [r for r in runs if not r.ok]
    stat: dict[str, Any] = {"runs": len(runs), "failed": len(errors)}
    if errors:
        kinds: dict[str, int] = {}
        for r in errors:
            kinds[r.error["kind"]] = kinds.get(r.error["kind"], 0) + 1
        first = errors[0].error
        stat.update(kinds=kinds, first_error=first)
        where = f" at step {first['step']}" if first.get("step") else ""
        budget_only = set(kinds) == {"budget"}
        return Check("protocol", "WARN" if budget_only else "FAIL",
                     f"{len(errors)}/{len(runs)} runs failed ({', '.join(kinds)}): "
                     f"{first['message']}{where}", stat)
    if twin is not None and twin.ok and runs and runs[0].pairs_sha256:
        same = twin.pairs_sha256 == runs[0].pairs_sha256
        stat["deterministic"] = same
        if not same:
            return Check("protocol", "FAIL",
                         "non-deterministic: the same seed gave a different duel sequence", stat)
    return Check("protocol", "PASS", f"{len(runs)} runs, no protocol error", stat)


def _share_check(ok: list[RunOutcome], T: int) -> Check:
    ck = np.asarray(ok[0].checkpoints, dtype=float)
    B = np.mean([r.regret["binary"] for r in ok], axis=0)
    b4, b2, b1 = (_at(ck, B, T / 4), _at(ck, B, T / 2), float(B[-1]))
    share = (b1 - b2) / (T - T / 2)
    rho = (b1 - b2) / (b2 - b4) if b2 - b4 > 0 else float("nan")
    stat = {"late_share": share, "growth_ratio": rho, "B_T": b1}
    msg = f"share in (T/2,T] = {share:.3g}, growth ratio rho = {rho:.3g} (log: 1, linear: 2)"
    if share > SHARE_FAIL:
        return Check("non-winner share", "FAIL", msg + " — does not vanish", stat)
    if share > SHARE_WARN and (rho > GROWTH_WARN or math.isnan(rho)):
        return Check("non-winner share", "WARN", msg + " — still growing linearly", stat)
    return Check("non-winner share", "PASS", msg, stat)


def _linear_check(ok: list[RunOutcome], T: int, late_share: float) -> Check:
    ck = np.asarray(ok[0].checkpoints, dtype=float)
    R = np.mean([r.regret["komiyama"] for r in ok], axis=0)
    sel = ck >= max(T / 100.0, 2.0)
    X = np.column_stack([np.ones(sel.sum()), np.log(ck[sel]), ck[sel]])
    (a, b, c), *_ = np.linalg.lstsq(X, R[sel], rcond=None)
    lam = c * T / R[-1] if R[-1] > 0 else 0.0
    stat = {"a": a, "b_log": b, "c_linear": c, "linear_share": lam, "R_T": float(R[-1])}
    msg = f"fit R = a + {b:.3g} log t + {c:.3g} t; linear share lambda = {lam:.3g}"
    # A fit on a short horizon cannot tell a long transient from linear growth, so
    # FAIL needs the late duels to back it up (non-winners still played often).
    if lam > LINEAR_FAIL and late_share > SHARE_WARN:
        return Check("sublinear", "FAIL", msg + " — regret grows linearly", stat)
    if lam > LINEAR_WARN:
        return Check("sublinear", "WARN", msg + " — transient or linear: try a larger T", stat)
    return Check("sublinear", "PASS", msg, stat)


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    from scipy import stats

    m = float(np.mean(x))
    if x.size < 2:  # one run: no interval, the point estimate decides
        return m, m, m
    half = float(stats.t.ppf(1 - ALPHA / 2, x.size - 1) * np.std(x, ddof=1) / math.sqrt(x.size))
    return m, m - half, m + half


def _bound_checks(ok: list[RunOutcome], T: int, cstar: float | None, cstar_err: str | None,
                  claimed: float | None) -> list[Check]:
    ratio = np.array([r.final_regret["komiyama"] for r in ok]) / math.log(T)
    m, lo, hi = _mean_ci(ratio)
    out = []
    if cstar is None:
        out.append(Check("lower bound", "WARN", f"C* unavailable ({cstar_err})",
                         {"ratio": m}))
    else:
        stat = {"ratio_mean": m, "ci": [lo, hi], "C_star": cstar, "ratio_over_C_star": m / cstar}
        msg = f"R(T)/log T = {m:.4g} [{lo:.4g}, {hi:.4g}] vs C* = {cstar:.4g}"
        if hi < cstar:
            out.append(Check("lower bound", "WARN", msg + " — below the lower bound "
                             "(only possible at finite T or for an inconsistent algorithm)", stat))
        else:
            out.append(Check("lower bound", "PASS", msg, stat))
    if claimed is not None:
        stat = {"ratio_mean": m, "ci": [lo, hi], "claimed": claimed, "C_star": cstar}
        msg = f"R(T)/log T = {m:.4g} [{lo:.4g}, {hi:.4g}] vs claimed {claimed:.4g}"
        if cstar is not None and claimed < cstar * (1 - 1e-9):
            out.append(Check("claimed", "FAIL", msg + f" — claim below C* = {cstar:.4g} "
                             "contradicts [K16] Theorem 2", stat))
        elif lo > claimed:
            out.append(Check("claimed", "WARN", msg + " — measured above the claim", stat))
        else:
            out.append(Check("claimed", "PASS", msg, stat))
    return out


def mann_whitney_null_counts(n: int, m: int) -> np.ndarray:
    """Exact null distribution of the Mann–Whitney U statistic, as counts.

    ``out[u]`` is the number of the C(n+m, n) equally likely arrangements of two
    samples of sizes n and m (continuous data, no ties) in which exactly u of the
    n·m pairs (x_i, y_j) have x_i > y_j.  Recursion on the largest observation
    (Mann & Whitney 1947): it is an x (adds m to U) or a y,
    c(n, m, u) = c(n − 1, m, u − m) + c(n, m − 1, u).  Integer (object) counts, exact
    for any n, m.
    """
    if n < 0 or m < 0:
        raise DuelboundError(f"sample sizes must be >= 0, got {n}, {m}")
    # rows[b] = distribution for sizes (a, b) while a runs from 0 to n
    rows = [np.array([1], dtype=object) for _ in range(m + 1)]
    for a in range(1, n + 1):
        new = [np.array([1], dtype=object)]  # (a, 0): U = 0
        for b in range(1, m + 1):
            top, left = rows[b], new[b - 1]  # (a − 1, b) shifted by b; (a, b − 1)
            out = np.zeros(a * b + 1, dtype=object)
            out[b:b + top.size] += top
            out[:left.size] += left
            new.append(out)
        rows = new
    return rows[m]


def regret_ratio_interval(x, y, confidence: float = 1 - 2 * REFERENCE_ALPHA
                          ) -> tuple[float, float, float]:
    """Hodges–Lehmann ratio of two positive samples with its exact Mann–Whitney interval.

    On the log scale the shift model log X = log Y + δ gives the Hodges–Lehmann
    estimate δ̂ = median of the n·m differences D_ij = log x_i − log y_j, and the
    distribution-free interval [D_(k), D_(nm+1−k)] (order statistics), k the largest
    integer with P(U ≤ k − 1) ≤ (1 − confidence)/2 under the exact null distribution
    of U (:func:`mann_whitney_null_counts`; Hollander & Wolfe, *Nonparametric
    Statistical Methods*, §4.3).  Returned as ratios exp(·): (estimate, low, high);
    low = 0 and high = inf when the samples are too small for the level.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.size == 0 or y.size == 0 or (x <= 0).any() or (y <= 0).any():
        raise DuelboundError("the ratio interval needs two non-empty samples of positive values")
    if not 0 < confidence < 1:
        raise DuelboundError(f"confidence must be in (0, 1), got {confidence}")
    D = np.sort((np.log(x)[:, None] - np.log(y)[None, :]).ravel())
    counts = mann_whitney_null_counts(x.size, y.size)
    cdf = np.cumsum(counts)  # cdf[u] = #arrangements with U ≤ u (exact integers)
    # the tail as an exact count, so that 0.9 means 1/20 per side (3 vs 3 runs reach it)
    tail_count = Fraction(1 - confidence).limit_denominator(10**6) / 2 * int(cdf[-1])
    k = 0
    while k < D.size and cdf[k] <= tail_count:  # P(U ≤ k) ≤ tail: k + 1 is allowed
        k += 1
    est = float(np.exp(np.median(D)))
    if k == 0:
        return est, 0.0, math.inf
    return est, float(np.exp(D[k - 1])), float(np.exp(D[D.size - k]))


def _reference_check(ok: list[RunOutcome], ref: list[RunOutcome], name: str) -> Check:
    from scipy import stats

    ref_ok = [r for r in ref if r.ok]
    if not ref_ok:
        return Check("reference", "WARN", f"reference {name} produced no run", {})
    x = np.array([r.final_regret["komiyama"] for r in ok])
    y = np.array([r.final_regret["komiyama"] for r in ref_ok])
    ratio = float(np.median(x) / np.median(y)) if np.median(y) > 0 else float("inf")
    p = float(stats.mannwhitneyu(x, y, alternative="greater").pvalue)
    stat = {"median_user": float(np.median(x)), "median_reference": float(np.median(y)),
            "median_ratio": ratio, "p_value_greater": p}
    msg = f"median R(T) {np.median(x):.4g} vs {name} {np.median(y):.4g} " \
          f"(ratio {ratio:.3g}, Mann-Whitney p = {p:.3g})"
    if (x > 0).all() and (y > 0).all():
        level = 1 - 2 * REFERENCE_ALPHA
        hl, lo, hi = regret_ratio_interval(x, y, level)
        equivalent = EQUIVALENCE[0] <= lo and hi <= EQUIVALENCE[1]
        stat.update(hl_ratio=hl, ratio_interval=[lo, hi], interval_level=level,
                    equivalent=bool(equivalent))
        msg += (f"; HL ratio {hl:.3g}, {level:.0%} interval [{lo:.3g}, {hi:.3g}]"
                + (f" — equivalent within [{EQUIVALENCE[0]:.3g}, {EQUIVALENCE[1]:.3g}]"
                   if equivalent else ""))
    if p <= REFERENCE_ALPHA and ratio > RATIO_WARN:
        return Check("reference", "WARN", msg + " — significantly worse", stat)
    return Check("reference", "PASS", msg, stat)


def _c_star(M: PreferenceMatrix) -> tuple[float | None, str | None]:
    try:
        from duelbound.solvers.lower_bound import lower_bound

        return float(lower_bound(M, certify=False).value), None
    except Exception as exc:  # reported in the check, never hidden
        return None, f"{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------------------
# Entry point.
# --------------------------------------------------------------------------------------

def load_factory(spec: str) -> Callable:
    """``"package.module:factory"`` -> the factory object (a bundled name stays a str)."""
    import importlib

    from .simulator import ALGORITHMS

    if spec in ALGORITHMS:
        return spec
    mod_name, sep, attr = spec.partition(":")
    if not sep or not attr:
        raise DuelboundError(f"expected MODULE:FACTORY or a bundled algorithm name, got {spec!r}")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as exc:
        raise DuelboundError(f"cannot import {mod_name!r}: {exc}") from None
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise DuelboundError(f"module {mod_name!r} has no attribute {attr!r}") from None


def _as_matrices(matrices: Sequence[Any] | None) -> list[PreferenceMatrix]:
    out = []
    for m in matrices or DEFAULT_MATRICES:
        if isinstance(m, PreferenceMatrix):
            out.append(m)
        elif isinstance(m, str):
            out.append(examples.load(m))
        else:
            out.append(PreferenceMatrix(m))
    return out


def _run_seed(seed: int, m: int, r: int) -> int:
    return int(np.random.SeedSequence([seed, m, r]).generate_state(1)[0])


def verify(factory: Callable | str, matrices: Sequence[Any] | None = None, *, T: int = 20_000,
           runs: int = 4, reference: str | None = None, protocol: str = "select",
           claimed_coefficient: float | None = None, time_limit: float = 120.0,
           budget: float = 900.0, seed: int = 0, workers: int | None = None,
           name: str | None = None) -> VerifyReport:
    """Verify a dueling-bandit algorithm on a suite of matrices.

    Parameters
    ----------
    factory : callable or str
        ``factory(K, T, seed)`` -> select/update object (``protocol="select"``) or
        ``run(duel, T)`` callable (``protocol="duel"``); or a bundled algorithm name.
    matrices : sequence, optional
        PreferenceMatrix objects, bundled example names or arrays; default
        :data:`DEFAULT_MATRICES`.
    T, runs : int
        Horizon and runs per matrix.  Run r of matrix m passes the seed
        s = SeedSequence([seed, m, r]) to the factory; the environment draws from an
        independent stream (:func:`environment_seed`), so an algorithm that seeds its
        generator with s cannot see the environment's coin flips.
    reference : str, optional
        Bundled algorithm for the two-sample comparison (its runs use the same s).
    protocol : {"select", "duel"}
    claimed_coefficient : float, optional
        The coefficient of log T the implementation claims (komiyama convention).
    time_limit : float
        Seconds per run; a slower run is killed and reported.
    budget : float
        Wall-clock seconds for everything; runs not started by then are reported
        as skipped (WARN).
    workers : int, optional
        Runs in parallel (default: number of CPUs).

    Returns
    -------
    VerifyReport
        ``.table()`` and ``.to_dict()``; ``.verdict`` is the worst verdict.
    """
    from .environment import check_horizon
    from .simulator import ALGORITHMS

    T = check_horizon(T)
    if runs < 1:
        raise DuelboundError(f"runs must be >= 1, got {runs}")
    if protocol not in ("select", "duel"):
        raise DuelboundError(f"protocol must be 'select' or 'duel', got {protocol!r}")
    if reference is not None and reference not in ALGORITHMS:
        raise DuelboundError(f"unknown reference {reference!r}; choose from "
                             f"{', '.join(ALGORITHMS)}")
    if isinstance(factory, str):
        if factory not in ALGORITHMS:
            raise DuelboundError(f"unknown bundled algorithm {factory!r}")
        kind = "bundled"
    elif callable(factory):
        kind = protocol
    else:
        raise DuelboundError("factory must be callable or a bundled algorithm name")
    label = name or (factory if isinstance(factory, str)
                     else getattr(factory, "__qualname__", repr(factory)))
    mats = _as_matrices(matrices)
    workers = workers or mp.cpu_count()
    start = time.perf_counter()
    jobs: list[_Job] = []
    for mi, M in enumerate(mats):
        vals = M.values.tolist()
        for r in range(runs):
            s = _run_seed(seed, mi, r)
            jobs.append(_Job(("user", mi, r), kind, factory, vals, T, s))
            if reference is not None:
                jobs.append(_Job(("ref", mi, r), "bundled", reference, vals, T, s))
        if kind != "bundled":  # determinism: run 0 again with the same seed
            jobs.append(_Job(("twin", mi, 0), kind, factory, vals, T, _run_seed(seed, mi, 0)))
    results, exhausted = _run_jobs(jobs, time_limit, budget, workers, start)
    reports = []
    for mi, M in enumerate(mats):
        user = [results[("user", mi, r)] for r in range(runs)]
        ref = [results[("ref", mi, r)] for r in range(runs)] if reference else []
        checks = [_protocol_check(user, results.get(("twin", mi, 0)))]
        ok = [r for r in user if r.ok]
        if ok:
            share = _share_check(ok, T)
            checks.append(share)
            checks.append(_linear_check(ok, T, share.statistic["late_share"]))
            cstar, err = _c_star(M)
            checks += _bound_checks(ok, T, cstar, err, claimed_coefficient)
            if reference:
                checks.append(_reference_check(ok, ref, reference))
        reports.append(MatrixReport(M.name or f"matrix{mi}", M.K, M.content_hash(), user,
                                    checks, ref))
    return VerifyReport(str(label), "bundled" if kind == "bundled" else protocol, T, runs, seed,
                        reference, claimed_coefficient, reports,
                        time.perf_counter() - start, exhausted)

