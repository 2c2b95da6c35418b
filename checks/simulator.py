"""Reference simulator: run the seeds' algorithms on a preference matrix (SPEC §6).

>>> from duelbound.theory import examples
>>> rec = run_single(examples.load("cyclic"), "rucb", T=1000, seed=0)
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
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from duelbound.theory.errors import DuelboundError, UnknownNameError
from duelbound.theory.matrix import PreferenceMatrix

from . import alg_ccb, alg_dts, alg_rmed, alg_rucb, alg_savage, alg_scb, alg_uniform
from .alg_common import AlgorithmSpec
from .environment import make_env, make_rng
from .policy import run_policy
from .records import RunRecord, SimulationResult, plot_results, record_from_env

__all__ = ["ALGORITHMS", "run_single", "simulate", "run_policy", "RunRecord",
           "SimulationResult", "plot_results", "get_algorithm", "matrix_bounds"]

_SPECS: list[AlgorithmSpec] = [
    alg_ccb.SPEC, alg_scb.SPEC, alg_rmed.CW_SPEC, alg_rmed.ECW_SPEC, alg_dts.SPEC,
    alg_dts.PLUS_SPEC, alg_savage.SPEC, alg_rucb.SPEC, alg_rmed.RMED1_SPEC, alg_uniform.SPEC,
]
#: name -> :class:`AlgorithmSpec`, in SPEC §6 order (iterating gives the names).
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


def run_single(M, algorithm: str, T: int, seed: int, params: dict | None = None,
               checkpoints=None, *, log_pairs: bool = False) -> RunRecord:
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
    spec.runner(env, rng, *extra, *args)
    wall = time.perf_counter() - start
    if env.clock[0] != env.clock[2]:
        raise DuelboundError(f"internal error: {spec.name} stopped at t = {env.clock[0]} < T")
    used = dict(zip(spec.defaults, args, strict=True))
    return record_from_env(env, spec.name, seed, used, wall, M.content_hash())


def _worker(payload):
    M, algorithm, T, seed, params, checkpoints = payload
    return run_single(M, algorithm, T, seed, params, checkpoints)


def matrix_bounds(M: PreferenceMatrix) -> dict[str, float]:
    """C* and C^E* of ``M`` from :mod:`duelbound.solvers`, or {} if unavailable."""
    out: dict[str, float] = {}
    try:
        from duelbound.solvers import ecw_bound
        from duelbound.solvers.lower_bound import lower_bound
    except ImportError:
        return out
    # C^E* is exact ([K16] Th. 5); C* carries its certificate status in its key, so a
    # plot or JSON never shows an uncertified LP value (K > CERTIFY_MAX_K) as plain "C*".
    try:
        lb = lower_bound(M)
        exact = lb.certificate.get("status") == "exact"
        out["C*" if exact else "C* (uncertified)"] = float(lb.value)
    except (DuelboundError, ImportError):
        pass
    try:
        out["C^E*"] = float(ecw_bound(M).value)
    except (DuelboundError, ImportError):
        pass
    return out


def run_seeds(seed: int, runs: int) -> list[int]:
    """Per-run seeds derived from ``seed`` (SeedSequence), so each run can be replayed."""
    make_rng(seed)  # validates
    state = np.random.SeedSequence(int(seed)).generate_state(runs, np.uint64)
    return [int(s >> np.uint64(1)) for s in state]


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
        tqdm bar over runs; default on only when stderr is a terminal.
    bounds : bool
        Also compute C* and C^E* (for the plot) with :mod:`duelbound.solvers`.
    """
    M = _as_matrix(M)
    spec = get_algorithm(algorithm)
    spec.arguments(params)  # fail early on bad parameters
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise DuelboundError(f"runs must be a positive integer, got {runs!r}")
    seeds = run_seeds(seed, int(runs))
    procs = min(int(runs), os.cpu_count() or 1) if processes is None else int(processes)
    if progress is None:
        progress = sys.stderr.isatty()
    from tqdm.auto import tqdm

    bar = tqdm(total=len(seeds), desc=spec.name, disable=not progress, unit="run")
    start = time.perf_counter()
    # Compile (or load from cache) in the parent first: forked workers inherit it.
    run_single(M, spec.name, 10, 0, params)
    records: dict[int, RunRecord] = {}
    payloads = [(M, spec.name, T, s, params, checkpoints) for s in seeds]
    if procs <= 1 or len(seeds) == 1:
        for k, p in enumerate(payloads):
            records[k] = _worker(p)
            bar.update()
    else:
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(procs, mp_context=mp.get_context(method)) as pool:
            futures = {pool.submit(_worker, p): k for k, p in enumerate(payloads)}
            for fut in as_completed(futures):
                records[futures[fut]] = fut.result()
                bar.update()
    bar.close()
    wall = time.perf_counter() - start
    return SimulationResult.from_records(
        [records[k] for k in range(len(seeds))], matrix_name=M.name or "", K=M.K,
        seed=int(seed), wall_time=wall, bounds=matrix_bounds(M) if bounds else None)
