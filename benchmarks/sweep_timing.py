"""Plugin algorithm for benchmarks/bench_sweep.py: ``run_single`` plus start/end timestamps.

Loaded on the Dask workers as ``sweep_timing:timed`` (the benchmark puts this folder on
their path).  ``params = {"algorithm": NAME, "log": PATH}``: runs
``run_single(M, NAME, T, seed)`` and appends ``pid start end`` (epoch seconds) to PATH,
so the benchmark can measure how long each worker sat idle between two tasks.
"""

from __future__ import annotations

import os
import time

from duelbound.checks.simulate.simulator import run_single


def timed(M, T, seed, params, checkpoints):
    start = time.time()
    rec = run_single(M, params["algorithm"], T, seed, checkpoints=checkpoints)
    with open(params["log"], "a") as f:
        f.write(f"{os.getpid()} {start!r} {time.time()!r}\n")
    return rec
