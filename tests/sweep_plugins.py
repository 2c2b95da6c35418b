"""Plugin algorithms for the sweep tests, loaded on Dask workers as ``sweep_plugins:NAME``.

Workers import this module by name, so the tests put ``tests/`` on the workers'
``PYTHONPATH`` (spawned LocalCluster workers inherit ``sys.path``; separately
started ``dask worker`` processes and CLI subprocesses get the environment variable).

``uniform`` is an independent numpy re-implementation of uniform pair selection
(not the package's simulator), deterministic in the seed.
"""

from __future__ import annotations

import os
import time

import numpy as np

from duelbound.theory.regret import CONVENTIONS, regret_matrix


def uniform(M, T, seed, params, checkpoints):
    """Duel a uniformly random pair (i, j), i ≤ j unordered, T times; exact regret accounting."""
    if params.get("sleep"):
        time.sleep(float(params["sleep"]))
    rng = np.random.default_rng(seed)
    K = M.K
    i = rng.integers(0, K, size=T)
    j = rng.integers(0, K, size=T)
    won = rng.random(T) < M.values[i, j]
    counts = np.zeros((K, K), dtype=np.int64)
    np.add.at(counts, (i, j), 1)
    counts = counts + counts.T - np.diag(np.diag(counts))
    wins = np.zeros((K, K), dtype=np.int64)
    np.add.at(wins, (i[won], j[won]), 1)
    np.add.at(wins, (j[~won], i[~won]), 1)
    cps = np.asarray(checkpoints if checkpoints else [max(1, T // 2), T], dtype=np.int64)
    regret, final = {}, {}
    for c in CONVENTIONS:
        cum = np.cumsum(regret_matrix(M, c)[i, j])
        regret[c] = cum[cps - 1].tolist()
        final[c] = float(cum[-1])
    return {"checkpoints": cps.tolist(), "regret": regret, "final_regret": final,
            "counts": counts.tolist(), "wins": wins.tolist(), "wall_time": 0.0}


def boom(M, T, seed, params, checkpoints):
    """Raise on the matrix named ``doomed``, else behave like :func:`uniform`."""
    if M.name == "doomed":
        raise RuntimeError("boom on purpose")
    return uniform(M, T, seed, params, checkpoints)


def die(M, T, seed, params, checkpoints):
    """Kill the worker process on the matrix named ``doomed``, else :func:`uniform`."""
    if M.name == "doomed":
        os._exit(13)
    return uniform(M, T, seed, params, checkpoints)
