"""Verify anyone's dueling-bandit implementation against the theory and the simulator.

:func:`verify` runs a user algorithm, given as ``"package.module:factory"``, on a
suite of preference matrices and reports per matrix and check one of PASS,
INCONCLUSIVE, WARN, FAIL (:mod:`duelbound.checks.verify.verdicts`).

Isolation
---------
The user's module is imported only in a child process started from a fresh
interpreter (:mod:`duelbound.checks.verify.judge`); this process never imports it.  The
child sees K, T, its own seed and the outcome of each duel it requests; the
preference matrix, the environment's generator (seeded from fresh secret entropy,
recorded in the report for ``environment_seed=`` replays), the record of the duels
and every statistic stay here.  Per run: wall-time, CPU-time, memory and output
limits, a hang timeout, its own session, and SIGKILL of the whole process group at
the end.

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

import hashlib
import multiprocessing as mp
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

import numpy as np

from ...theory import datasets
from ...theory.errors import DuelboundError
from ...theory.generators import random_matrix
from ...theory.matrix import PreferenceMatrix
from ...theory.tournament import condorcet_winner, copeland_winners
from . import verdicts as V
from .judge import (
    PROTOCOL_ERRORS,
    Limits,
    harden,
    judge_run,
    new_environment_seed,
    probe,
    run_environment_seed,
    trajectory,
)
from .sandbox import isolation as sandbox_isolation
from .verdicts import Check, worst

__all__ = ["Interrupted", "exec_spec", "generated_matrices", "DEFAULT_MATRICES", "DEFAULT_T",
           "DEFAULT_RUNS", "Check", "RunOutcome", "MatrixReport", "VerifyReport",
           "verify_algorithm", "load_factory", "factory_spec", "EXIT_CODES"]

#: Default suite: Condorcet winner; no Condorcet winner with 3 Copeland winners
#: (L1 = 1); a unique Copeland winner that is no Condorcet winner (L1 = 1).
DEFAULT_MATRICES = ("cyclic", "multi_winner", "unique_copeland")
DEFAULT_T = 20_000
DEFAULT_RUNS = 10
#: Seconds for sequential horizons after the first stage (docs/verification.md).
DEFAULT_EXTEND_BUDGET = 240.0
#: Exit codes of ``duelbound verify`` (and :attr:`VerifyReport.exit_code`).
EXIT_CODES = {"PASS": 0, "WARN": 1, "FAIL": 1, "ERROR": 2, "INCONCLUSIVE": 3}


@dataclass
class RunOutcome:
    """One run as the judge recorded it (statistics are computed from this)."""

    seed: int
    ok: bool
    T: int = 0
    steps: int = 0
    environment_seed: int | None = None
    error: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    error_counts: dict[str, int] = field(default_factory=dict)
    environment_error: dict[str, Any] | None = None
    usage_error: dict[str, Any] | None = None
    final_regret: dict[str, float] | None = None
    checkpoints: list[int] | None = None
    regret: dict[str, list[float]] | None = None
    counts: dict[str, list] | None = None
    pairs_sha256: str = ""
    wall_time: float = 0.0
    cpu_time: float = float("nan")
    duels_per_s: float = 0.0
    exit_status: str = ""
    leftover_processes: int = 0
    stdout_tail: str = ""
    stderr_tail: str = ""
    isolation: str = ""        # how the run was isolated (sandbox.Isolation.describe)
    relabeled: bool = False    # arms presented under the run's secret relabeling

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
    condorcet_winner: int | None = None
    copeland_winners: list[int] = field(default_factory=list)
    arms: list[str] | None = None
    twin: RunOutcome | None = None
    horizon: int = 0          # the T of the runs judged (sequential horizons: 4T, 16T, ...)
    horizons_tried: list[int] = field(default_factory=list)

    @property
    def condorcet(self) -> bool:
        return self.condorcet_winner is not None

    @property
    def verdict(self) -> str:
        return worst(c.verdict for c in self.checks)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "K": self.K, "sha256": self.sha256, "verdict": self.verdict,
                "horizon": self.horizon, "horizons_tried": self.horizons_tried,
                "condorcet_winner": self.condorcet_winner,
                "copeland_winners": self.copeland_winners, "arms": self.arms,
                "checks": [c.to_dict() for c in self.checks],
                "runs": [r.to_dict() for r in self.runs],
                "twin": self.twin.to_dict() if self.twin else None,
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
    environment_seed: int | None = None
    suite_checks: list[Check] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    environment_error: dict[str, Any] | None = None
    isolation: str = ""
    interrupted: str | None = None   # "SIGINT" / "SIGTERM": a partial report

    @property
    def verdict(self) -> str:
        return worst([m.verdict for m in self.matrices] + [c.verdict for c in self.suite_checks])

    @property
    def exit_code(self) -> int:
        """0 PASS, 1 WARN or FAIL, 2 environment error, 3 INCONCLUSIVE (nothing worse);
        130 / 143 when interrupted by SIGINT / SIGTERM (128 + the signal's number)."""
        if self.interrupted is not None:
            return 128 + int(signal.Signals[self.interrupted])
        if self.environment_error is not None:
            return EXIT_CODES["ERROR"]
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("matrices", "suite_checks")}
        out["verdict"] = self.verdict
        out["exit_code"] = self.exit_code
        out["suite_checks"] = [c.to_dict() for c in self.suite_checks]
        out["matrices"] = [m.to_dict() for m in self.matrices]
        return out

    def table(self) -> str:
        """Plain-text table: one line per (matrix, check), then the reasons."""
        head = f"{'matrix':<20} {'check':<18} {'verdict':<12} statistic"
        lines = [f"verify {self.algorithm} (protocol {self.protocol}, T = {self.T}, "
                 f"runs = {self.runs}, seed = {self.seed}, environment seed = "
                 f"{self.environment_seed})", head, "-" * 90]
        for m in self.matrices:
            tag = f"{m.name}{' (CW)' if m.condorcet else ''}"
            if m.horizon and m.horizon != self.T:
                tag += f" T={m.horizon:.0e}".replace("e+0", "e")
            for c in m.checks:
                lines.append(f"{tag:<20} {c.name:<18} {c.verdict:<12} {c.message}")
        for c in self.suite_checks:
            lines.append(f"{'(suite)':<20} {c.name:<18} {c.verdict:<12} {c.message}")
        lines.append("-" * 90)
        lines.append("(CW): the matrix has a Condorcet winner; T=...: decided at a larger "
                     "horizon (undecided at the one before, re-run within --extend-budget)")
        if self.environment_error:
            lines.append(f"environment error (not the algorithm): "
                         f"{self.environment_error.get('message', '')}")
        for r in self.reasons:
            lines.append(f"reason: {r}")
        tail = ", budget exhausted" if self.budget_exhausted else ""
        if self.interrupted:
            tail += f", INTERRUPTED by {self.interrupted}: partial report"
        lines.append(f"overall: {self.verdict}  (exit code {self.exit_code}; took "
                     f"{self.wall_time:.1f} s{tail})")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Runs: each one in a fork of this (trusted) process; user code only in the judge's child.
# --------------------------------------------------------------------------------------

@dataclass
class _Job:
    key: tuple
    kind: str          # "user" | "bundled"
    target: str        # "module:attr" or a bundled algorithm name
    matrix: int
    values: list
    T: int
    seed: int
    environment_seed: int = 0
    hidden: tuple[str, ...] = ()   # the suite's matrix files, shown empty in the sandbox
    relabel: bool = True


def _counts_at(pairs: np.ndarray, K: int, upto: int) -> list:
    N = np.zeros((K, K), dtype=np.int64)
    if upto > 0:
        p = pairs[:upto]
        np.add.at(N, (p[:, 0], p[:, 1]), 1)
        off = p[:, 0] != p[:, 1]
        np.add.at(N, (p[off, 1], p[off, 0]), 1)
    return N.tolist()


def _summarise(M: PreferenceMatrix, pairs: np.ndarray, T: int) -> dict[str, Any]:
    """Regret curves and pair counts of a recorded duel sequence (trusted side)."""
    from ..simulate.environment import log_checkpoints

    n = int(pairs.shape[0])
    ck = log_checkpoints(T)
    ck = ck[ck <= n]
    if n and (ck.size == 0 or ck[-1] != n):
        ck = np.append(ck, n)
    tr = trajectory(M, pairs, ck)
    final = {c: float(v[-1]) if v.size else 0.0 for c, v in tr.items() if c != "checkpoints"}
    return {"checkpoints": tr["checkpoints"].tolist(),
            "regret": {c: v.tolist() for c, v in tr.items() if c != "checkpoints"},
            "final_regret": final,
            "counts": {"quarter": _counts_at(pairs, M.K, n // 4),
                       "half": _counts_at(pairs, M.K, n // 2),
                       "final": _counts_at(pairs, M.K, n)},
            "pairs_sha256": hashlib.sha256(np.ascontiguousarray(pairs, "<i4").tobytes()
                                           ).hexdigest(),
            "steps": n}


def _execute(job: _Job, protocol: str, limits) -> dict[str, Any]:
    """Body of a trusted worker: one run, returned as plain data."""
    M = PreferenceMatrix(job.values)
    if job.kind == "bundled":
        from ..simulate.simulator import run_single

        t0 = time.perf_counter()
        rec = run_single(M, job.target, job.T, job.seed, log_pairs=True)
        wall = time.perf_counter() - t0
        out = _summarise(M, rec.pairs.astype(np.int32), job.T)
        out.update(ok=True, wall_time=wall, duels_per_s=job.T / wall if wall > 0 else 0.0,
                   exit_status="bundled")
        return out

    rec = judge_run(job.target, M, job.T, job.seed, job.environment_seed, protocol=protocol,
                    limits=limits, hidden=job.hidden, relabel=job.relabel)
    out = _summarise(M, rec.pairs, job.T)
    out.update(ok=rec.ok, error=rec.first_error, errors=rec.errors,
               error_counts=rec.error_counts, environment_error=rec.environment_error,
               usage_error=rec.usage_error, wall_time=rec.wall_time, cpu_time=rec.cpu_time,
               duels_per_s=rec.progress.get("duels_per_s", 0.0), exit_status=rec.exit_status,
               leftover_processes=rec.killed_leftovers, stdout_tail=rec.stdout_tail,
               stderr_tail=rec.stderr_tail, isolation=rec.progress.get("isolation", ""),
               relabeled=rec.progress.get("relabeled", False))
    return out


def _stop_worker(signum, frame):
    raise SystemExit(128 + signum)   # unwinds judge_run, which kills the algorithm's process


def _child(conn, job, protocol, limits) -> None:
    harden()   # this worker holds the matrix and the generator: keep /proc/PID/mem closed
    signal.signal(signal.SIGTERM, _stop_worker)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the coordinator's to handle
    try:
        conn.send(_execute(job, protocol, limits))
    except BaseException as exc:  # noqa: BLE001 — reported, never hidden
        conn.send({"ok": False, "error": {"kind": "judge", "step": None,
                                          "message": f"internal error: {type(exc).__name__}: "
                                                     f"{exc}"}})
    finally:
        conn.close()


def _context():
    # fork: the trusted workers inherit compiled numba code; no user code is loaded here.
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def _outcome(job: _Job, data: dict[str, Any]) -> RunOutcome:
    fields = RunOutcome.__dataclass_fields__
    kw = {k: v for k, v in data.items() if k in fields}
    kw.setdefault("ok", False)
    errs = kw.get("errors") or ([kw["error"]] if kw.get("error") else [])
    kw["errors"] = errs
    kw["error"] = errs[0] if errs else None
    return RunOutcome(seed=job.seed, T=job.T, environment_seed=job.environment_seed
                      if job.kind == "user" else None, **{k: v for k, v in kw.items()
                                                          if k not in ("seed", "T")})


class _Progress:
    def __init__(self, enabled: bool, names: list[str], runs: int):
        self.enabled, self.names, self.runs, self.done = enabled, names, runs, 0
        self.tty = enabled and sys.stderr.isatty()

    def stage(self, horizon: int, matrices: list[int], first: bool) -> None:
        """A new stage of runs (sequential horizons): the counter restarts."""
        self.done = 0
        if self.enabled and not first:
            sys.stderr.write(f"undecided at T = {horizon // 4}: "
                             f"{', '.join(self.names[m] for m in matrices)}; "
                             f"running them at T = {horizon}\n")

    def __call__(self, job: _Job, out: RunOutcome, total: int) -> None:
        self.done += 1
        if not self.enabled:
            return
        what = {"user": "run", "twin": "replay", "ref": "reference"}[job.key[0]]
        line = (f"[{self.done}/{total}] {self.names[job.matrix]} {what} {job.key[2] + 1}: "
                f"{out.steps} duels in {out.wall_time:.2f} s ({out.duels_per_s:,.0f} duels/s)"
                f"{'' if out.ok else ' — ' + (out.error or {}).get('kind', 'error')}")
        if self.tty:
            sys.stderr.write("\r\033[K" + line + ("\n" if self.done == total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM during a verification (the CLI raises it from its handler)."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)


#: Outcomes of runs that were not judged to the end (neither is the algorithm's fault).
NOT_RUN = ("budget", "interrupted")


def _not_run(job: _Job, kind: str, message: str) -> RunOutcome:
    return RunOutcome(job.seed, False, T=job.T, error={"kind": kind, "step": None,
                                                       "message": message})


def _run_jobs(jobs: list[_Job], protocol: str, limits, budget: float, workers: int,
              start: float, progress: _Progress
              ) -> tuple[dict[tuple, RunOutcome], bool, int | None]:
    """Every job in a trusted worker, ``workers`` at a time, within ``budget``.

    Returns the outcomes, whether the budget ran out and the signal that interrupted
    the runs (None when none did): on SIGINT/SIGTERM the workers are stopped (each
    kills its algorithm's process first) and the runs not finished are marked.
    """
    ctx = _context()
    out: dict[tuple, RunOutcome] = {}
    pending = list(jobs)
    active: dict[Any, tuple[_Job, Any, float]] = {}
    exhausted = False
    backstop = limits.time_limit + 60.0  # the judge enforces the limit; this is a backstop
    try:
        while pending or active:
            while pending and len(active) < workers:
                if time.perf_counter() - start > budget:
                    exhausted = True
                    for job in pending:
                        out[job.key] = _not_run(job, "budget", "not run: wall-clock budget "
                                                f"{budget:g} s exhausted")
                    pending = []
                    break
                job = pending.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(send, job, protocol, limits),
                                   daemon=True)
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
                    except EOFError:
                        proc.join(1.0)
                        result = {"ok": False, "error": {
                            "kind": "judge", "step": None,
                            "message": f"judge process died (exit code {proc.exitcode})"}}
                elif now - t0 > backstop:
                    proc.kill()
                    result = {"ok": False, "error": {"kind": "timeout", "step": None,
                                                     "message": "judge backstop time limit"}}
                if result is not None:
                    proc.join(1.0)
                    recv.close()
                    del active[recv]
                    out[job.key] = o = _outcome(job, result)
                    progress(job, o, len(jobs))
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", int(signal.SIGINT))
        name = signal.Signals(signum).name
        for _job, proc, _ in active.values():
            proc.terminate()   # the worker kills its algorithm's process, then exits
        for job, proc, _ in active.values():
            proc.join(5.0)
            if proc.is_alive():
                proc.kill()
            out[job.key] = _not_run(job, "interrupted", f"not finished: interrupted by {name}")
        for job in pending:
            out[job.key] = _not_run(job, "interrupted", f"not run: interrupted by {name}")
        return out, exhausted, signum
    return out, exhausted, None


# --------------------------------------------------------------------------------------
# Checks.
# --------------------------------------------------------------------------------------

def _protocol_check(runs: list[RunOutcome], twin: RunOutcome | None, T: int) -> Check:
    every = runs + ([twin] if twin is not None else [])
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
                     f"in all runs: {extra}", stat)
    if leftovers:
        return Check("protocol", "FAIL", f"{leftovers} process(es) the algorithm started were "
                     "still running after its runs (killed)", stat)
    if env is not None:
        stat["environment_error"] = env
        return Check("protocol", "INCONCLUSIVE", "environment error, not the algorithm: "
                     f"{env['message']}", stat)
    if twin is not None and twin.ok and runs and runs[0].ok and runs[0].pairs_sha256:
        same = twin.pairs_sha256 == runs[0].pairs_sha256
        stat["deterministic"] = same
        if not same:
            return Check("protocol", "FAIL",
                         "non-deterministic: the same seed and environment gave a different "
                         "duel sequence", stat)
    slow = [r for r in every if r.error and r.error.get("kind") == "timeout"]
    if slow:
        r = slow[0]
        stat["first_error"] = r.error
        return Check("protocol", "INCONCLUSIVE", f"{len(slow)} run(s) hit the time limit: "
                     f"{r.error['message']}", stat)
    skipped = [r for r in every if r.error and r.error.get("kind") in NOT_RUN]
    if skipped:
        return Check("protocol", "INCONCLUSIVE", f"{len(skipped)} run(s) "
                     f"{skipped[0].error['message']}", stat)
    if not runs or any(r.steps == 0 for r in runs):
        return Check("protocol", "FAIL", "a run recorded no duel", stat)
    rate = np.median([r.duels_per_s for r in runs]) if runs else 0.0
    stat["median_duels_per_s"] = float(rate)
    return Check("protocol", "PASS", f"{len(runs)} runs × T = {T}, no protocol error"
                 f"{', deterministic' if stat.get('deterministic') else ''} "
                 f"({rate:,.0f} duels/s)", stat)


def _c_star(M: PreferenceMatrix) -> tuple[float | None, str | None]:
    try:
        from ...solvers.cstar import lower_bound

        return float(lower_bound(M, certify=False).value), None
    except Exception as exc:  # reported in the check, never hidden
        return None, f"{type(exc).__name__}: {exc}"


def _reasons(reports: list[MatrixReport]) -> list[str]:
    out = []
    bad = [m for m in reports if any(c.name == "consistency" and c.verdict in ("FAIL", "WARN")
                                     for c in m.checks)]
    if bad and all(not m.condorcet for m in bad) and any(
            m.condorcet and m.check("consistency").verdict in ("PASS", "INCONCLUSIVE")
            for m in reports if any(c.name == "consistency" for c in m.checks)):
        out.append("consistent only on matrices with a Condorcet winner ("
                   + ", ".join(m.name for m in reports if m.condorcet) + "), linear on "
                   + ", ".join(m.name for m in bad)
                   + ": behaves like a Condorcet algorithm (e.g. RUCB, RMED1), not a "
                   "Copeland one")
    return out


# --------------------------------------------------------------------------------------
# Entry point.
# --------------------------------------------------------------------------------------

def load_factory(spec: str) -> str:
    """Validate ``"package.module:factory"`` (or a bundled name) *without importing it*.

    The module is imported only in the judge's child process, where a failure to
    import is reported as a usage error (:func:`verify_algorithm` raises DuelboundError).
    """
    from ..simulate.simulator import ALGORITHMS

    if not isinstance(spec, str):
        raise DuelboundError(f"expected a 'module:factory' string, got {type(spec).__name__}")
    if spec in ALGORITHMS:
        local = [p for p in (f"{spec}.py", spec) if spec.isidentifier() and os.path.exists(p)]
        if local:
            raise DuelboundError(
                f"{spec!r} is ambiguous: a bundled algorithm, and ./{local[0]} in the working "
                f"folder; to judge your module give {spec}:FACTORY (e.g. {spec}:make), to "
                f"verify the bundled {spec} run from another folder")
        return spec
    mod_name, sep, attr = spec.partition(":")
    ok = sep and attr and all(p.isidentifier() for p in mod_name.split(".")) and \
        all(p.isidentifier() for p in attr.split("."))
    if not ok:
        raise DuelboundError(f"expected MODULE:FACTORY or a bundled algorithm name, got {spec!r}")
    return spec


def factory_spec(factory: Callable | str) -> str:
    """``"module:qualname"`` of an importable factory (the judge imports it by name)."""
    if isinstance(factory, str):
        return load_factory(factory)
    mod = getattr(factory, "__module__", None)
    qual = getattr(factory, "__qualname__", None)
    if not mod or not qual or "<locals>" in qual or "<lambda>" in qual or mod == "__main__":
        raise DuelboundError(
            "the factory must be importable by name from a fresh interpreter: give it as "
            "'package.module:factory' (a module-level function or class), not a lambda, a "
            "closure or a function defined in __main__")
    return f"{mod}:{qual}"


def _as_matrices(matrices: Sequence[Any] | None) -> list[PreferenceMatrix]:
    out = []
    for m in (DEFAULT_MATRICES if matrices is None else matrices):
        if isinstance(m, PreferenceMatrix):
            out.append(m)
        elif isinstance(m, str):
            out.append(datasets.load(m))
        else:
            out.append(PreferenceMatrix(m))
    if not out:
        raise DuelboundError("no matrix to verify on")
    return out


def generated_matrices(master: int, count: int) -> list[PreferenceMatrix]:
    """Matrices drawn from the secret master environment seed, added to the suite.

    K in 5..7; with or without a Condorcet winner (each with probability 1/2; without
    one: L1 = 1, one to three Copeland winners); gaps uniform on [0.1, 0.4], rounded to
    two decimals.  Nobody knows them before the verification (the seed is drawn then),
    anyone can rebuild them from the report's environment seed.
    """
    out = []
    for g in range(count):
        rng = np.random.default_rng(np.random.SeedSequence([int(master), 0x6E4E, g]))
        K = int(rng.integers(5, 8))
        condorcet = bool(rng.random() < 0.5)
        winners = None if condorcet else int(rng.integers(1, 4))
        out.append(random_matrix(K, rng, gap_range=(0.1, 0.4), condorcet=condorcet,
                                 n_winners=winners, l1=None if condorcet else 1,
                                 decimals=2, name=f"generated-{g + 1}"))
    return out


def _run_seed(seed: int, m: int, r: int) -> int:
    return int(np.random.SeedSequence([seed, m, r]).generate_state(1)[0])


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
           extend_budget: float | None = None) -> VerifyReport:
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
        Wall-clock seconds for everything; runs not started by then are INCONCLUSIVE.
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
    T, spec, kind = _check_arguments(factory, T, runs, protocol, reference, command)
    if extend_budget is None:
        extend_budget = DEFAULT_EXTEND_BUDGET
    if not extend_budget >= 0:
        raise DuelboundError(f"extend_budget must be >= 0 seconds (0 disables the sequential "
                             f"horizons), got {extend_budget!r}")
    master = new_environment_seed() if environment_seed is None else int(environment_seed)
    if generated is None:
        generated = 1 if matrices is None else 0
    if generated < 0:
        raise DuelboundError(f"generated must be >= 0, got {generated}")
    mats = _as_matrices(matrices) + generated_matrices(master, generated)
    startup = float(startup_timeout or max(60.0, 3 * hang_timeout))
    limits = Limits(time_limit=float(time_limit), hang_timeout=float(hang_timeout),
                    startup_timeout=startup, mem_bytes=int(memory_limit * 2**30))
    start = time.perf_counter()
    detected = "bundled" if kind == "bundled" else _detect_protocol(
        spec, mats[0].K, T, _run_seed(seed, 0, 0), protocol, startup, limits.mem_bytes)
    workers = workers or max(1, (os.cpu_count() or 2) // 2)
    names = [M.name or f"matrix{i}" for i, M in enumerate(mats)]
    proto = detected if detected != "bundled" else "auto"
    progress_bar = _Progress(progress, names, runs)
    reports: list[MatrixReport] = [None] * len(mats)  # type: ignore[list-item]
    pooled: dict[int, tuple[list, list]] = {}
    partial: dict[int, bool] = {}
    todo, horizon, interrupted, exhausted = list(range(len(mats))), T, None, False
    spent_first = 0.0
    while todo:
        t_stage = time.perf_counter()
        progress_bar.stage(horizon, todo, horizon == T)
        jobs = _plan_jobs(spec, kind, mats, horizon, runs, seed, master, reference, relabel,
                          only=todo)
        results, ex, interrupted = _run_jobs(jobs, proto, limits, budget, workers, start,
                                             progress_bar)
        exhausted = exhausted or ex
        linear_before = {mi: bool(reports[mi]) and _linear(reports[mi]) for mi in todo}
        for mi in todo:
            report, pair, part = _judge_matrix(mi, mats[mi], names[mi], results, horizon,
                                               runs, reference, claimed_coefficient,
                                               len(mats))
            report.horizon = horizon
            report.horizons_tried = (reports[mi].horizons_tried if reports[mi] else []) \
                + [horizon]
            if linear_before[mi] and _linear(report):
                report.check("consistency").message += (
                    f" (linear at T = {horizon // 4} and at T = {horizon}: confirmed)")
            reports[mi], partial[mi] = report, part
            if pair is not None:
                pooled[mi] = pair
        stage = time.perf_counter() - t_stage
        spent_first = spent_first or stage
        if interrupted is not None or ex:
            break
        undecided = [mi for mi in todo if _undecided(reports[mi], linear_before[mi])]
        # the next stage costs ~4x this one per matrix (T x 4): run it if it fits
        cost = stage * 4 * len(undecided) / max(len(todo), 1)
        elapsed_extra = time.perf_counter() - start - spent_first
        if not undecided or horizon * 4 > MAX_EXTENDED_T or \
                elapsed_extra + cost > extend_budget:
            if undecided:
                for mi in undecided:
                    _say_extension(reports[mi], horizon * 4, cost, extend_budget)
            break
        todo, horizon = undecided, horizon * 4
    env_error, any_partial = None, any(partial.values())
    for report in reports:
        env_error = env_error or report.checks[0].statistic.get("environment_error")
    pooled_list = [pooled[mi] for mi in sorted(pooled)]
    suite = _suite_checks(reports, pooled_list, reference, seed, any_partial)
    isolation = ("bundled algorithm (compiled, trusted)" if kind == "bundled" else
                 f"{sandbox_isolation().describe()}; "
                 + ("arms secretly relabeled per run" if relabel else "arms NOT relabeled")
                 + "; environment, record and verdicts in the judge")
    return VerifyReport(name or spec.replace("exec:", "exec ", 1), detected, T, runs, seed,
                        reference, claimed_coefficient,
                        reports, time.perf_counter() - start, exhausted, master, suite,
                        _reasons(reports), env_error, isolation,
                        None if interrupted is None else signal.Signals(interrupted).name)


def exec_spec(command: str | Sequence[str]) -> str:
    """The judge's spec of a program for the line protocol: ``"exec:" + JSON argv``.

    The program (first word: a path, or a name on PATH; ``python``/``python3`` is the
    interpreter running duelbound) and every argument that names an existing file or
    folder are made absolute: the program runs in the sandbox's own
    working folder, and exactly those paths are shown to it, read-only.
    """
    import json
    import shlex
    import shutil

    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise DuelboundError("--exec needs a command")
    # "python"/"python3": the interpreter running duelbound (a pyenv or conda shim on
    # PATH would need its whole installation inside the sandbox)
    prog = (sys.executable if argv[0] in ("python", "python3") else
            argv[0] if "/" in argv[0] else shutil.which(argv[0]))
    if prog is None or not os.path.isfile(prog) or not os.access(prog, os.X_OK):
        raise DuelboundError(f"--exec {argv[0]!r}: no such executable file")
    argv = [os.path.abspath(prog)] + [os.path.abspath(a) if os.path.exists(a) else a
                                      for a in argv[1:]]
    return "exec:" + json.dumps(argv)


def _check_arguments(factory: Callable | str | None, T: int, runs: int, protocol: str,
                     reference: str | None, command: str | Sequence[str] | None = None
                     ) -> tuple[int, str, str]:
    """Step 1 of :func:`verify_algorithm`: (T, the factory's spec, "user" or "bundled")."""
    # numba-compiled simulator: imported only here, where a bundled algorithm may run
    from ..simulate.environment import check_horizon
    from ..simulate.simulator import ALGORITHMS

    T = check_horizon(T)
    if runs < 1:
        raise DuelboundError(f"runs must be >= 1, got {runs}")
    if protocol not in ("auto", "select", "duel"):
        raise DuelboundError(f"protocol must be 'auto', 'select' or 'duel', got {protocol!r}")
    if reference is not None and reference not in ALGORITHMS:
        raise DuelboundError(f"unknown reference {reference!r}; choose from "
                             f"{', '.join(ALGORITHMS)}")
    if command is not None:
        if factory is not None:
            raise DuelboundError("give an algorithm or --exec COMMAND, not both")
        return T, exec_spec(command), "user"
    if not callable(factory) and not isinstance(factory, str):
        raise DuelboundError("factory must be 'module:factory', a bundled algorithm name or "
                             "an importable callable")
    if isinstance(factory, str) and ":" not in factory and factory not in ALGORITHMS:
        raise DuelboundError(f"unknown bundled algorithm {factory!r}; choose from "
                             f"{', '.join(ALGORITHMS)} or give MODULE:FACTORY")
    spec = factory_spec(factory)
    return T, spec, "bundled" if spec in ALGORITHMS else "user"


def _detect_protocol(spec: str, K: int, T: int, seed: int, protocol: str,
                     startup: float, mem_bytes: int) -> str:
    """Step 2: import the user's factory in a child once and name its protocol."""
    info = probe(spec, K, T, seed, Limits(time_limit=startup + 5, hang_timeout=startup,
                                          startup_timeout=startup, mem_bytes=mem_bytes))
    if "kind" in info:
        if info["kind"] in ("import", "usage", "environment", "crash", "startup"):
            raise DuelboundError(f"{spec}: {info['message']}")
        return protocol  # the factory raised: every run will report it
    detected = info["protocol"]
    if detected is None:
        raise DuelboundError(
            f"{spec}: factory(K, T, seed) returned a {info.get('type')}, which fits "
            "neither protocol: an object with select() -> (i, j) and update(i, j, "
            "i_won) (select) or a callable run(duel, T) (duel)")
    if protocol != "auto" and protocol != detected:
        raise DuelboundError(f"{spec}: --protocol {protocol} given, but "
                             f"factory(K, T, seed) returned a {info.get('type')} "
                             f"({detected} protocol)")
    return detected


def _plan_jobs(spec: str, kind: str, mats: list[PreferenceMatrix], T: int, runs: int,
               seed: int, master: int, reference: str | None, relabel: bool = True,
               only: list[int] | None = None) -> list[_Job]:
    """Step 3: every run to make — the user's, the reference's, one determinism twin —
    on the matrices ``only`` (default all; indices keep their seeds)."""
    jobs: list[_Job] = []
    hidden = tuple(M.source for M in mats if M.source)
    for mi, M in enumerate(mats):
        if only is not None and mi not in only:
            continue
        vals = M.values.tolist()
        for r in range(runs):
            s = _run_seed(seed, mi, r)
            es = run_environment_seed(master, mi, r)
            if kind == "user":
                jobs.append(_Job(("user", mi, r), kind, spec, mi, vals, T, s, es, hidden,
                                 relabel))
            else:  # a bundled algorithm draws from one stream: give it the secret one
                jobs.append(_Job(("user", mi, r), kind, spec, mi, vals, T, es))
            if reference is not None:
                jobs.append(_Job(("ref", mi, r), "bundled", reference, mi, vals, T, s))
        if kind == "user":  # determinism: run 0 again, same seed and same environment
            jobs.append(_Job(("twin", mi, 0), kind, spec, mi, vals, T, _run_seed(seed, mi, 0),
                             run_environment_seed(master, mi, 0), hidden, relabel))
    return jobs


#: Largest horizon the sequential extension goes to.
MAX_EXTENDED_T = 10_000_000
#: Checks whose INCONCLUSIVE sends a matrix to the next horizon.
EXTENDED_CHECKS = ("consistency", "lower bound")


def _linear(report: MatrixReport) -> bool:
    """Is the matrix's consistency FAIL the linear-growth rule (to be confirmed at 4T)?"""
    c = next((c for c in report.checks if c.name == "consistency"), None)
    return c is not None and c.verdict == "FAIL" and c.statistic.get("rule") == "linear"


def _undecided(report: MatrixReport, linear_before: bool = False) -> bool:
    """Would a larger T decide this matrix?  An INCONCLUSIVE consistency or lower-bound
    check with nothing worse established; or linear growth seen at this T only — an
    algorithm that knows T may still be exploring (explore-then-commit with c log T
    duels per pair), so the linear rule is confirmed at 4T when the budget allows."""
    if _linear(report) and not linear_before and \
            sum(c.verdict == "FAIL" for c in report.checks) == 1:
        return True
    if report.verdict in ("WARN", "FAIL") or not report.runs:
        return False
    return any(c.name in EXTENDED_CHECKS and c.verdict == "INCONCLUSIVE"
               for c in report.checks)


def _say_extension(report: MatrixReport, next_T: int, cost: float, allowed: float) -> None:
    for c in report.checks:
        if c.name == "consistency" and _linear(report):
            c.message += (f" [seen at T = {report.horizon} only: confirming at T = {next_T} "
                          f"would take ~{cost:.0f} s more, beyond --extend-budget {allowed:g} s]")
        if c.name in EXTENDED_CHECKS and c.verdict == "INCONCLUSIVE":
            c.message += (f" [undecided at T = {report.horizon}; T = {next_T} would take "
                          f"~{cost:.0f} s more, beyond --extend-budget {allowed:g} s]")
            c.statistic["next_T"] = next_T
            c.statistic["next_T_seconds"] = cost


def _judge_matrix(mi: int, M: PreferenceMatrix, name: str, results: dict, T: int, runs: int,
                  reference: str | None, claimed: float | None, n_matrices: int
                  ) -> tuple[MatrixReport, tuple[list, list] | None, bool]:
    """Step 4: the checks of one matrix from its runs (report, pooled sample, partial)."""
    user = [results[("user", mi, r)] for r in range(runs)]
    ref = [results[("ref", mi, r)] for r in range(runs)] if reference else []
    twin = results.get(("twin", mi, 0))
    checks = [_protocol_check(user, twin, T)]
    pair = None
    with_data = [r for r in user if r.steps > 0 and r.counts]
    if with_data:
        cons = V.consistency_check(with_data, M, T, runs)
        checks.append(cons)
        cstar, err = _c_star(M)
        checks.append(V.slope_check(with_data, [r for r in ref if r.ok], cstar, err,
                                    cons.verdict == "PASS"))
        if claimed is not None:
            checks.append(V.claimed_check(with_data, cstar, claimed))
        if reference:
            checks.append(V.reference_check(M, with_data, [r for r in ref if r.ok],
                                            reference, T, n_matrices))
            pair = ([r.final_regret["komiyama"] for r in with_data if r.steps == T],
                    [r.final_regret["komiyama"] for r in ref if r.ok])
    partial = [r for r in user if r.steps < T]
    if partial:   # no survivorship bias: a statistic on a subset is never a PASS
        for c in checks[1:]:
            if c.verdict == "PASS":
                c.verdict = "INCONCLUSIVE"
                c.message += (f" — only {runs - len(partial)} of {runs} runs reached T; "
                              "the others count up to their last duel")
    cw = condorcet_winner(M)
    report = MatrixReport(name, M.K, M.content_hash(), user, checks, ref,
                          condorcet_winner=None if cw is None else int(cw),
                          copeland_winners=[int(i) for i in copeland_winners(M)],
                          arms=list(M.arms) if M.arms else None, twin=twin)
    return report, pair, bool(partial)


def _suite_checks(reports: list[MatrixReport], pooled: list, reference: str | None,
                  seed: int, any_partial: bool) -> list[Check]:
    """Step 5: the suite-level reference comparison (and what it does to per-matrix WARNs)."""
    suite: list[Check] = []
    if reference and len(pooled) > 0:
        suite.append(V.pooled_reference_check(pooled, reference, seed=seed))
        if suite[-1].verdict != "WARN":   # a per-matrix WARN needs the suite's evidence
            for m in reports:
                for c in m.checks:
                    if c.name == "reference" and c.verdict == "WARN":
                        c.verdict = "PASS"
                        c.message += " (not significant over the suite: no WARN)"
        if any_partial and suite[-1].verdict == "PASS":
            suite[-1].verdict = "INCONCLUSIVE"
            suite[-1].message += " — on the runs that reached T only"
    return suite
