"""The runs of a verification: planned per matrix, each judged in a trusted worker.

:func:`plan_jobs` lists every run to make — the user's, the reference's, one
determinism twin per matrix — with its seeds; :func:`run_jobs` runs them, ``workers``
at a time, each in a fork of this (trusted) process that calls
:func:`.judge.judge_run` (user code only in the judge's child) and sends back the
run's :class:`.record.JudgedRun`; a bundled algorithm runs compiled in the fork itself.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

import numpy as np

from ...theory.matrix import PreferenceMatrix
from .interrupts import INTERRUPTS, Interrupted, Interrupts
from .judge import Limits, harden, judge_run, run_environment_seed
from .record import NOT_RUN, JudgedRun, duel_summary
from .sandbox import set_parent_death_signal

__all__ = ["Job", "Interrupted", "Interrupts", "INTERRUPTS", "NOT_RUN", "Progress",
           "plan_jobs", "run_jobs", "run_seed", "BUDGET_GRACE"]


@dataclass(frozen=True)
class Job:
    """One run to make."""

    key: tuple             # ("user" | "ref" | "twin", matrix index, run index)
    kind: str              # "user" | "bundled"
    target: str            # "module:attr" or a bundled algorithm name
    matrix: int
    values: list
    T: int
    seed: int
    environment_seed: int = 0
    hidden: tuple[str, ...] = ()   # the suite's matrix files, shown empty in the sandbox
    relabel: bool = True

    @property
    def recorded_environment_seed(self) -> int | None:
        """The environment seed its record names (a bundled run draws from its seed)."""
        return self.environment_seed if self.kind == "user" else None


#: Seconds past ``--budget`` after which a worker that has not sent its run's record (the
#: judge stops the run at the budget itself) is stopped by the coordinator.
BUDGET_GRACE = 3.0


def run_seed(seed: int, m: int, r: int) -> int:
    """The algorithm's seed of run ``r`` on matrix ``m``: SeedSequence([seed, m, r])."""
    return int(np.random.SeedSequence([seed, m, r]).generate_state(1)[0])


def plan_jobs(spec: str, kind: str, mats: list[PreferenceMatrix], T: int, runs: int,
              seed: int, master: int, reference: str | None, relabel: bool = True,
              only: list[int] | None = None) -> list[Job]:
    """Every run to make — the user's, the reference's, one determinism twin —
    on the matrices ``only`` (default all; indices keep their seeds)."""
    jobs: list[Job] = []
    hidden = tuple(M.source for M in mats if M.source)
    for mi, M in enumerate(mats):
        if only is not None and mi not in only:
            continue
        vals = M.values.tolist()
        for r in range(runs):
            s = run_seed(seed, mi, r)
            es = run_environment_seed(master, mi, r)
            if kind == "user":
                jobs.append(Job(("user", mi, r), kind, spec, mi, vals, T, s, es, hidden,
                                relabel))
            else:  # a bundled algorithm draws from one stream: give it the secret one
                jobs.append(Job(("user", mi, r), kind, spec, mi, vals, T, es))
            if reference is not None:
                jobs.append(Job(("ref", mi, r), "bundled", reference, mi, vals, T, s))
        if kind == "user":  # determinism: run 0 again, same seed and same environment
            jobs.append(Job(("twin", mi, 0), kind, spec, mi, vals, T, run_seed(seed, mi, 0),
                            run_environment_seed(master, mi, 0), hidden, relabel))
    return jobs


def _execute(job: Job, protocol: str, limits: Limits) -> JudgedRun:
    """Body of a trusted worker: one run, judged."""
    M = PreferenceMatrix(job.values)
    if job.kind == "bundled":
        from ..simulate.simulator import run_single

        t0 = time.perf_counter()
        rec = run_single(M, job.target, job.T, job.seed, log_pairs=True)
        wall = time.perf_counter() - t0
        assert rec.pairs is not None   # log_pairs=True
        return JudgedRun(seed=job.seed, T=job.T, wall_time=wall,
                         duels_per_s=job.T / wall if wall > 0 else 0.0, exit_status="bundled",
                         **duel_summary(M, rec.pairs.astype(np.int32), job.T))
    return judge_run(job.target, M, job.T, job.seed, job.environment_seed, protocol=protocol,
                     limits=limits, hidden=job.hidden, relabel=job.relabel)


def _stop_worker(signum, frame):
    raise SystemExit(128 + signum)   # unwinds judge_run, which kills the algorithm's process


def _worker(conn, job: Job, protocol: str, limits: Limits) -> None:
    harden()   # this worker holds the matrix and the generator: keep /proc/PID/mem closed
    set_parent_death_signal()   # a kill -9 of the command ends this worker, hence its sandbox
    signal.signal(signal.SIGTERM, _stop_worker)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the coordinator's to handle
    if INTERRUPTS.signum is not None:
        # stopped before those handlers: the coordinator's, inherited, only noted it
        conn.close()
        return
    try:
        conn.send(_execute(job, protocol, limits))
    except BaseException as exc:  # noqa: BLE001 — reported, never hidden
        conn.send(_judge_failure(job, f"internal error: {type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _judge_failure(job: Job, message: str, kind: str = "judge") -> JudgedRun:
    return JudgedRun.failed(seed=job.seed, T=job.T, kind=kind, message=message,
                            environment_seed=job.recorded_environment_seed)


def _context():
    # fork: the trusted workers inherit compiled numba code; no user code is loaded here.
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


class Progress:
    """Progress of the runs on stderr (one line per run; overwritten on a terminal), and
    with ``DUELBOUND_VERIFY_PHASES=1`` in the environment a line as each phase starts
    (``duelbound verify: phase probe|runs|verdicts|report``: for a supervisor, or a
    test, that acts on a phase)."""

    def __init__(self, enabled: bool, names: list[str], runs: int):
        self.enabled, self.names, self.runs, self.done = enabled, names, runs, 0
        self.tty = enabled and sys.stderr.isatty()

    @staticmethod
    def phase(name: str) -> None:
        """Announce the phase ``name`` (only with ``DUELBOUND_VERIFY_PHASES=1``)."""
        if os.environ.get("DUELBOUND_VERIFY_PHASES") == "1":
            sys.stderr.write(f"duelbound verify: phase {name}\n")
            sys.stderr.flush()

    def stage(self, horizon: int, matrices: list[int], first: bool) -> None:
        """A new stage of runs (sequential horizons): the counter restarts."""
        self.done = 0
        if self.enabled and not first:
            sys.stderr.write(f"undecided at T = {horizon // 4}: "
                             f"{', '.join(self.names[m] for m in matrices)}; "
                             f"running them at T = {horizon}\n")

    def __call__(self, job: Job, out: JudgedRun, total: int) -> None:
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




def _not_run(job: Job, kind: str, message: str) -> JudgedRun:
    return JudgedRun.failed(seed=job.seed, T=job.T, kind=kind, message=message)


def _receive(recv, job: Job, proc, t0: float, ready: list, backstop: float
             ) -> JudgedRun | None:
    """The record a worker sent, a failure when it died or outlived the backstop, or None
    while it is still running."""
    if recv in ready:
        try:
            return recv.recv()
        except EOFError:
            proc.join(1.0)
            return _judge_failure(job, f"judge process died (exit code {proc.exitcode})")
    if time.perf_counter() - t0 > backstop:
        proc.kill()
        return _judge_failure(job, "judge backstop time limit", kind="timeout")
    return None


def run_jobs(jobs: list[Job], protocol: str, limits: Limits, budget: float, workers: int,
             start: float, progress: Progress
             ) -> tuple[dict[tuple, JudgedRun], bool, int | None]:
    """Every job in a trusted worker, ``workers`` at a time, within ``budget``.

    Returns the records, whether the budget ran out and the signal that interrupted
    the runs (None when none did): on SIGINT/SIGTERM the workers are stopped (each
    kills its algorithm's process first) and the runs not finished are marked.  At the
    budget (``limits.deadline``) each judge stops its run and sends the record up to its
    last duel (error kind ``"budget"``); runs not started are marked, and a worker
    silent :data:`BUDGET_GRACE` seconds later is stopped.
    """
    ctx = _context()
    out: dict[tuple, JudgedRun] = {}
    pending = list(jobs)
    active: dict[Any, tuple[Job, Any, float]] = {}
    exhausted = False
    backstop = limits.time_limit + 60.0  # the judge enforces the limit; this is a backstop
    try:
        while pending or active:
            if INTERRUPTS.signum is not None:   # noted by the handler: stop here
                raise Interrupted(INTERRUPTS.signum)
            if active and time.perf_counter() - start > budget + BUDGET_GRACE:
                # each judge stops its run at the budget and sends the record; one that has
                # not (a bundled run, compiled) is stopped here, its record lost
                _stop_all(list(active.values()), [], out, "budget", "not finished: "
                          f"wall-clock budget {budget:g} s exhausted (record lost)")
                active.clear()
                exhausted = True
                continue
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
                proc = ctx.Process(target=_worker, args=(send, job, protocol, limits),
                                   daemon=True)
                proc.start()
                send.close()
                active[recv] = (job, proc, time.perf_counter())
            ready = wait(list(active), timeout=0.2) if active else []
            for recv in list(active):
                job, proc, t0 = active[recv]
                result = _receive(recv, job, proc, t0, ready, backstop)
                if result is not None:
                    proc.join(1.0)
                    recv.close()
                    del active[recv]
                    out[job.key] = result
                    exhausted = exhausted or (result.error or {}).get("kind") == "budget"
                    progress(job, result, len(jobs))
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", int(signal.SIGINT))
        name = signal.Signals(signum).name
        _stop_all(list(active.values()), pending, out, "interrupted",
                  f"not finished: interrupted by {name}", f"not run: interrupted by {name}")
        return out, exhausted, signum
    return out, exhausted, None


def _stop_all(active: list[tuple[Job, Any, float]], pending: list[Job],
              out: dict[tuple, JudgedRun], kind: str, running: str, waiting: str = ""
              ) -> None:
    """Stop the running workers (each kills its algorithm's process first) and mark every
    run not finished with the error ``kind``: ``running`` for those stopped, ``waiting``
    for those not started."""
    for _job, proc, _ in active:
        proc.terminate()   # the worker kills its algorithm's process, then exits
    for job, proc, _ in active:
        proc.join(5.0)
        if proc.is_alive():
            proc.kill()
        out[job.key] = _not_run(job, kind, running)
    for job in pending:
        out[job.key] = _not_run(job, kind, waiting)
