"""Reference simulator: run the seeds' algorithms on a preference matrix (docs/math.md §9).

>>> from duelbound.theory import datasets
>>> rec = run_single(datasets.load("cyclic"), "rucb", T=1000, seed=0)
>>> int(rec.counts[np.triu_indices(4, 1)].sum() + rec.counts.diagonal().sum())
1000

``run_single`` is one run (bit-for-bit reproducible from (M, algorithm, T,
seed, params)); ``simulate`` runs many in parallel processes and summarises
them; ``run_policy`` drives any Python object with ``select()``/``update()``
through the same environment and regret accounting.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...theory.errors import DuelboundError, UnknownNameError
from ...theory.matrix import PreferenceMatrix
from .algorithms import ccb as alg_ccb
from .algorithms import dts as alg_dts
from .algorithms import rmed as alg_rmed
from .algorithms import rucb as alg_rucb
from .algorithms import savage as alg_savage
from .algorithms import scb as alg_scb
from .algorithms import uniform as alg_uniform
from .algorithms.common import AlgorithmSpec
from .environment import make_env, make_rng
from .policy import run_policy
from .records import (
    RunRecord,
    SimulationResult,
    algorithm_label,
    plot_results,
    record_from_env,
)

__all__ = ["ALGORITHMS", "run_single", "simulate", "run_policy", "RunRecord",
           "SimulationResult", "SimulationInterrupted", "plot_results", "get_algorithm",
           "matrix_bounds", "warm_up", "compiled_code_cached", "feedback_enabled",
           "progress_bar", "COMPILE_NOTICE"]

#: The line printed on stderr when numba has to compile a runner (cold cache).
COMPILE_NOTICE = "compiling the simulator (first run only, ~1 min)"
#: Seconds after which a warm-up still running is taken for a compilation (fallback when
#: numba's on-disk cache cannot be inspected, or is stale in a way its index does not show).
_COMPILE_NOTICE_AFTER = 3.0

_SPECS: list[AlgorithmSpec] = [
    alg_ccb.ALGORITHM, alg_scb.ALGORITHM, alg_rmed.CW_SPEC, alg_rmed.ECW_SPEC,
    alg_dts.ALGORITHM, alg_dts.PLUS_SPEC, alg_savage.ALGORITHM, alg_rucb.ALGORITHM,
    alg_rmed.RMED1_SPEC, alg_uniform.ALGORITHM,
]
#: name -> :class:`AlgorithmSpec`, in docs/math.md §9 order (iterating gives the names).
ALGORITHMS: dict[str, AlgorithmSpec] = {s.name: s for s in _SPECS}


def get_algorithm(name: str) -> AlgorithmSpec:
    """The spec of algorithm ``name`` (case-insensitive), or UnknownNameError."""
    key = str(name).strip().lower()
    if key not in ALGORITHMS:
        raise UnknownNameError(
            f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[key]


def _as_matrix(M) -> PreferenceMatrix:
    return M if isinstance(M, PreferenceMatrix) else PreferenceMatrix(M)


#: Seconds between two looks at a running loop's clock (progress, Ctrl-C).
_POLL = 0.2


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`simulate`: the runs were stopped (within ~:data:`_POLL` s).

    Attributes
    ----------
    algorithm : str
        The algorithm that was running.
    runs_finished, runs : int
        Its runs that had finished (discarded: a summary needs all of them), and all.
    duels_done, duels : int
        Duels played by its runs so far, and runs × T.
    """

    def __init__(self, algorithm: str, runs_finished: int, runs: int, duels_done: int,
                 duels: int):
        super().__init__(f"{algorithm} interrupted")
        self.algorithm, self.runs_finished, self.runs = algorithm, runs_finished, runs
        self.duels_done, self.duels = duels_done, duels

    def to_dict(self) -> dict:
        return {"algorithm": self.algorithm, "runs_finished": self.runs_finished,
                "runs": self.runs, "duels_done": self.duels_done, "duels": self.duels}


def _drive(env, call: Callable[[], Any], report: Callable[[int], None] | None) -> None:
    """Run ``call`` (a compiled loop on ``env``, which releases the GIL) in a thread while
    this thread looks at its clock every :data:`_POLL` s, passing the duels played to
    ``report``.  A compiled loop cannot be interrupted, but it stops at its next duel once
    the horizon is reached: on KeyboardInterrupt the horizon is set to the current t
    (every loop ends when ``finished(env)``) and the interrupt is re-raised at once."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 -- re-raised in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=target, name="duelbound-run", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(_POLL)
            if report is not None:
                report(int(env.clock[0]))
    except KeyboardInterrupt:
        env.clock[2] = env.clock[0]  # finished(env) from now on: the loop returns
        worker.join(1.0)
        raise
    if failure:
        raise failure[0]


def run_single(M, algorithm: str, T: int, seed: int, params: dict | None = None,
               checkpoints=None, *, log_pairs: bool = False,
               progress: Callable[[int], None] | None = None) -> RunRecord:
    """One run of ``algorithm`` on ``M`` for ``T`` duels.

    Parameters
    ----------
    M : PreferenceMatrix or array-like
    algorithm : str
        One of :data:`ALGORITHMS`.
    T : int
        Horizon (number of duels).
    seed : int
        Non-negative; the run's generator is PCG64(SeedSequence(seed)).
    params : dict, optional
        Overrides of the algorithm's paper defaults (``ALGORITHMS[name].defaults``).
    checkpoints : array-like of int, optional
        t values at which the cumulative regret is recorded (default: ~60 log-spaced).
    log_pairs : bool
        Keep the full sequence of pairs and outcomes (debugging, small T).
    progress : callable, optional
        Called with the number of duels played every 0.2 s while the run lasts.  The
        compiled loop runs in a thread either way, so Ctrl-C stops it at once
        (KeyboardInterrupt; the run is lost).

    Returns
    -------
    RunRecord
    """
    M = _as_matrix(M)
    spec = get_algorithm(algorithm)
    args = spec.arguments(params)
    rng = make_rng(seed)
    env = make_env(M, T, checkpoints, log_pairs)
    extra = spec.prepare(M, env) if spec.prepare is not None else ()
    start = time.perf_counter()
    _drive(env, lambda: spec.runner(env, rng, *extra, *args), progress)
    wall = time.perf_counter() - start
    if env.clock[0] != env.clock[2]:
        raise DuelboundError(f"internal error: {spec.name} stopped at t = {env.clock[0]} < T")
    used = dict(zip(spec.defaults, args, strict=True))
    return record_from_env(env, spec.name, seed, used, wall, M.content_hash())


_SHARED_CLOCKS = None  # a worker process's view of the parent's per-run duel counters


def _init_worker(clocks) -> None:
    """Worker processes leave Ctrl-C to the parent, which kills them (their loops could not
    answer it anyway), and report their duels through ``clocks`` (shared memory)."""
    global _SHARED_CLOCKS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _SHARED_CLOCKS = clocks


def _worker(slot: int, payload: tuple) -> RunRecord:
    M, algorithm, T, seed, params, checkpoints = payload
    clocks = _SHARED_CLOCKS

    def report(t: int) -> None:
        if clocks is not None:
            clocks[slot] = t

    return run_single(M, algorithm, T, seed, params, checkpoints, progress=report)


def matrix_bounds(M: PreferenceMatrix) -> dict[str, float]:
    """C* and C^E* of ``M`` from :mod:`duelbound.solvers`, or {} if unavailable."""
    out: dict[str, float] = {}
    try:
        from ...solvers import ecw_bound
        from ...solvers.cstar import lower_bound
    except ImportError:
        return out
    # C^E* is exact ([K16] Th. 5); C* carries its certificate status in its key, so a
    # plot or JSON never shows an uncertified LP value (K > CERTIFY_MAX_K) as plain "C*".
    try:
        lb = lower_bound(M)
        # a verified certificate brackets the value within ~1e-15 (relative) or is exact
        certified = lb.proof.verified
        out["C*" if certified else "C* (uncertified)"] = float(lb.value)
    except (DuelboundError, ImportError):
        pass
    try:
        out["C^E*"] = float(ecw_bound(M, enclose=False).value)  # a reference, not certified
    except (DuelboundError, ImportError):
        pass
    return out


def feedback_enabled(progress: bool | None) -> bool:
    """Whether progress bars and notices go to stderr: ``progress`` if given, else only when
    stderr is a terminal."""
    if progress is not None:
        return bool(progress)
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def progress_bar(total: int, desc: str, enabled: bool | None, unit: str = "run") -> Any:
    """A tqdm bar on stderr, shown per :func:`feedback_enabled` (``enabled``).

    On a terminal it redraws in place; when forced on a non-terminal stderr (a log file,
    ``--progress``) it writes a plain status line at most every 30 s.
    """
    from tqdm.auto import tqdm

    on = feedback_enabled(enabled)
    tty = feedback_enabled(None)
    return tqdm(total=total, desc=desc, unit=unit, disable=not on, file=sys.stderr,
                dynamic_ncols=tty, smoothing=0.1, mininterval=0.1 if tty else 30.0,
                ascii=not tty)


def _dispatcher(algorithm: str) -> Any:
    """The compiled runner of ``algorithm``: a numba Dispatcher (numba is untyped)."""
    return get_algorithm(algorithm).runner


def compiled_code_cached(algorithm: str) -> bool | None:
    """Whether numba's on-disk cache holds a compiled runner of ``algorithm`` for its current
    source (True), holds none (False), or cannot be inspected (None).

    Reads the dispatcher's cache index (the file numba itself loads; an index whose source
    stamp differs from the module file is stale and counts as empty).  Callees edited since
    are not tracked by numba either (docs/simulator.md, "Tests").
    """
    runner = _dispatcher(algorithm)
    if runner.signatures:  # already compiled (or loaded) in this process
        return True
    # numba has no public "is it cached on disk" query (Dispatcher.stats counts hits only
    # after a compile), so this reads the private index; the errors below are those of
    # internals renamed (AttributeError) or of an unreadable, truncated or foreign index
    # file (open, pickle.load on corrupt bytes, the (stamp, overloads) unpacking): no
    # prediction then.
    try:
        return bool(runner._cache._cache_file._load_index())
    except (AttributeError, OSError, EOFError, ValueError, TypeError, KeyError, IndexError,
            ImportError, pickle.UnpicklingError):
        return None


def warm_up(M, algorithm: str, params: dict | None = None, *, notice: bool = True,
            stream=None) -> float:
    """Compile the runner of ``algorithm`` (or load it from numba's cache) with a 10-duel run.

    When it has to compile, :data:`COMPILE_NOTICE` is written to ``stream`` (stderr) once:
    at once if :func:`compiled_code_cached` says the cache is cold, else after
    3 s if the warm-up is still running.

    Parameters
    ----------
    M : PreferenceMatrix or array-like
    algorithm : str
    params : dict, optional
    notice : bool
        Write the notice at all.
    stream : file, optional
        Where the notice goes (default ``sys.stderr``).

    Returns
    -------
    float
        Seconds spent.
    """
    stream = sys.stderr if stream is None else stream
    said = threading.Event()

    def say() -> None:
        if notice and not said.is_set():
            said.set()
            stream.write(COMPILE_NOTICE + "\n")
            stream.flush()

    start = time.perf_counter()
    cached = compiled_code_cached(algorithm)
    timer = None
    if cached is False:
        say()
    elif cached is None or not _dispatcher(algorithm).signatures:
        timer = threading.Timer(_COMPILE_NOTICE_AFTER, say)
        timer.daemon = True
        timer.start()
    try:
        run_single(M, algorithm, 10, 0, params)
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - start


def run_seeds(seed: int, runs: int) -> list[int]:
    """Per-run seeds derived from ``seed`` (SeedSequence), so each run can be replayed."""
    make_rng(seed)  # validates
    state = np.random.SeedSequence(int(seed)).generate_state(runs, np.uint64)
    return [int(s >> np.uint64(1)) for s in state]


def _show(bar, clocks, records: dict | None = None) -> None:
    """The bar at the duels played by all runs (and, when given, the runs finished)."""
    if records is not None:
        bar.set_postfix_str(f"{len(records)}/{len(clocks)} runs", refresh=False)
    done = int(sum(clocks))
    if done > bar.n:
        bar.update(done - bar.n)  # redrawn at tqdm's own pace (every 30 s in a log file)


def _serial(payloads: list, clocks, records: dict, bar) -> None:
    """The runs one after the other in this process (their loops in a thread: Ctrl-C works)."""
    for k, p in enumerate(payloads):
        M, algorithm, T, seed, params, checkpoints = p

        def report(t: int, k: int = k) -> None:
            clocks[k] = t
            _show(bar, clocks)

        records[k] = run_single(M, algorithm, T, seed, params, checkpoints, progress=report)
        clocks[k] = T
        _show(bar, clocks, records)


def _parallel(payloads: list, clocks, records: dict, bar, procs: int) -> None:
    """The runs in ``procs`` worker processes; on Ctrl-C (or an error) they are killed."""
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    pool = mp.get_context(method).Pool(procs, initializer=_init_worker, initargs=(clocks,))
    try:
        pending = {k: pool.apply_async(_worker, (k, p)) for k, p in enumerate(payloads)}
        while pending:
            time.sleep(_POLL)
            for k in [k for k, job in pending.items() if job.ready()]:
                records[k] = pending.pop(k).get()
                clocks[k] = payloads[k][2]
            _show(bar, clocks, records)
        pool.close()
    finally:
        pool.terminate()  # kills the workers; a no-op after a clean close
        pool.join()


def simulate(M, algorithm: str, T: int, runs: int, seed: int, params: dict | None = None,
             checkpoints=None, *, processes: int | None = None, progress: bool | None = None,
             bounds: bool = False) -> SimulationResult:
    """``runs`` independent runs of ``algorithm``, in parallel processes.

    Run k uses seed ``run_seeds(seed, runs)[k]`` (also stored in the result), so
    ``run_single(M, algorithm, T, result.run_seeds[k])`` replays it.

    Parameters
    ----------
    processes : int, optional
        Worker processes (default: min(runs, CPU count)); 1 runs in this process.
    progress : bool, optional
        tqdm bar over the duels of all runs (with its time estimate) on stderr, and the
        one-line :data:`COMPILE_NOTICE` when numba has to compile; default on only when
        stderr is a terminal.
    bounds : bool
        Also compute C* and C^E* (for the plot) with :mod:`duelbound.solvers`.

    Raises
    ------
    SimulationInterrupted
        On Ctrl-C (a KeyboardInterrupt): the runs are stopped within ~0.2 s (worker
        processes killed), and the exception says how far they had got.
    """
    M = _as_matrix(M)
    spec = get_algorithm(algorithm)
    spec.arguments(params)  # fail early on bad parameters
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise DuelboundError(f"runs must be a positive integer, got {runs!r}")
    seeds = run_seeds(seed, int(runs))
    procs = min(int(runs), os.cpu_count() or 1) if processes is None else int(processes)
    progress = feedback_enabled(progress)
    start = time.perf_counter()
    label = algorithm_label(spec.name, spec.defaults | (params or {}))
    payloads = [(M, spec.name, T, s, params, checkpoints) for s in seeds]
    clocks = mp.Array("q", len(seeds), lock=False)  # duels played per run
    records: dict[int, RunRecord] = {}
    bar = progress_bar(len(seeds) * int(T), label, progress, unit="duel")
    try:
        # Compile (or load from cache) in the parent first: forked workers inherit it.
        warm_up(M, spec.name, params, notice=progress)
        if procs <= 1 or len(seeds) == 1:
            _serial(payloads, clocks, records, bar)
        else:
            _parallel(payloads, clocks, records, bar, procs)
    except KeyboardInterrupt:
        bar.close()
        raise SimulationInterrupted(spec.name, len(records), len(seeds), int(sum(clocks)),
                                    len(seeds) * int(T)) from None
    bar.close()
    wall = time.perf_counter() - start
    return SimulationResult.from_records(
        [records[k] for k in range(len(seeds))], matrix_name=M.name or "", K=M.K,
        seed=int(seed), wall_time=wall, bounds=matrix_bounds(M) if bounds else None,
        arms=M.arms)
