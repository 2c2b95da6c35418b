"""Sweep throughput on Dask: tasks/s with 1 vs 2 workers, and the overhead per task.

Usage::

    /work/venv/bin/python benchmarks/bench_sweep.py [--tasks 24] [--task-seconds 0.5]

A task is one ``run_single(M, "uniform", T, seed)`` on ``cyclic`` with T calibrated so
that one run takes about ``--task-seconds`` in this process.  For each worker count a
``LocalCluster`` is started once and warmed up (imports and numba caches loaded in every
worker), then a fresh store is swept through its scheduler address (the same code path
as ``--scheduler``).  Reported, side by side from one run:

* tasks/s and the speed-up of 2 workers over 1;
* scheduling overhead per task = the time a worker sits idle between the end of one
  task and the start of its next (timestamps written by the plugin
  ``benchmarks/sweep_timing.py`` around ``run_single``), median and mean over all
  consecutive pairs: what Dask adds to every task;
* overhead per task from the totals = (elapsed · workers − Σ task wall time) / tasks:
  the same plus the ramp-up and the tail (a worker idle while the last task runs);
* empty tasks (T = 10): elapsed · workers / tasks is the whole per-task cost of
  Dask + result handling + commit, with no simulation to hide behind;
* the CPU time (all processes) of the empty-task sweep per task: the machinery's cost
  independent of how busy the machine is;
* the SQLite commit alone (mean of ``write_run`` over the measured rows).

The machine is shared: the load average (``os.getloadavg``) is printed before and after.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from duelbound.checks.simulate.simulator import run_single
from duelbound.checks.sweep.runner import local_cluster_config, sweep
from duelbound.checks.sweep.store import SweepStore
from duelbound.theory import datasets

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # sweep_timing, for this process and the spawned workers
PLUGIN = "sweep_timing:timed"


def _idle_gaps(log: Path) -> np.ndarray:
    """Idle time between consecutive tasks of the same worker process (seconds)."""
    spans: dict[str, list[tuple[float, float]]] = {}
    for line in log.read_text().split("\n"):
        if line:
            pid, a, b = line.split()
            spans.setdefault(pid, []).append((float(a), float(b)))
    gaps = [nxt[0] - cur[1] for v in spans.values()
            for cur, nxt in zip(sorted(v), sorted(v)[1:])]
    return np.array(gaps)


def _calibrate(M, seconds: float) -> int:
    run_single(M, "uniform", 1000, 0)  # compile / load the cache
    T = 100_000
    while True:
        t0 = time.perf_counter()
        run_single(M, "uniform", T, 1)
        dt = time.perf_counter() - t0
        if dt > 0.05:
            return max(1000, int(T * seconds / dt))
        T *= 4


def _measure(M, T: int, tasks: int, empty_tasks: int, workers: int, tmp: Path) -> dict:
    import dask
    from dask.distributed import Client, LocalCluster

    with dask.config.set(local_cluster_config()), \
            LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None,
                         host="127.0.0.1", silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster) as client:
        addr = cluster.scheduler_address
        client.run(lambda: __import__("duelbound.checks.simulate.simulator"))
        sweep([M], ["uniform"], 1000, 2 * workers, 999, tmp / f"warm{workers}.sqlite",
              scheduler=addr)
        store = tmp / f"bench{workers}.sqlite"
        log = tmp / f"times{workers}.txt"
        res = sweep([M], [PLUGIN], T, tasks, 0, store, scheduler=addr,
                    params={PLUGIN: {"algorithm": "uniform", "log": str(log)}})
        gaps = _idle_gaps(log)
        # tasks of ~0 s: what remains is the per-task cost of Dask + the store; its CPU
        # time (client + in-process scheduler + workers) does not depend on the load
        cpu0 = _cpu(client)
        empty = sweep([M], ["uniform"], 10, empty_tasks, 1, tmp / f"empty{workers}.sqlite",
                      scheduler=addr)
        cpu1 = _cpu(client)
    rows = res.records()
    busy = sum(r["wall_time"] for r in rows)
    return {"workers": workers, "tasks": res.completed, "elapsed": res.elapsed,
            "rate": res.completed / res.elapsed, "task_s": busy / len(rows),
            "overhead_ms": 1e3 * (res.elapsed * workers - busy) / len(rows),
            "gap_median_ms": 1e3 * float(np.median(gaps)), "gap_mean_ms": 1e3 * float(gaps.mean()),
            "empty_rate": empty.completed / empty.elapsed,
            "empty_ms": 1e3 * empty.elapsed * workers / empty.completed,
            "empty_cpu_ms": 1e3 * (cpu1 - cpu0) / empty.completed}


def _cpu(client) -> float:
    """CPU seconds used so far by this process (client + LocalCluster scheduler) and workers."""
    import psutil

    def own() -> float:
        t = psutil.Process().cpu_times()
        return t.user + t.system

    return own() + sum(client.run(own).values())


def _commit_ms(rows: list[dict], tmp: Path) -> float:
    with SweepStore(tmp / "commit.sqlite") as st:
        st.add_matrix(datasets.load("cyclic"))
        t0 = time.perf_counter()
        for i, r in enumerate(rows):
            task = {k: r[k] for k in ("matrix_hash", "algorithm", "params", "T", "sweep_seed",
                                      "seed")}
            task.update(task_key=f"k{i}", run=i)
            rec = {"final_regret": {"komiyama": r["final_komiyama"], "zoghi": r["final_zoghi"],
                                    "binary": r["final_binary"]},
                   **{k: r[k] for k in ("checkpoints", "regret", "counts", "wins",
                                        "wall_time")}}
            st.write_run(task, status="ok", attempts=1, record=rec)
        return 1e3 * (time.perf_counter() - t0) / len(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=24)
    ap.add_argument("--task-seconds", type=float, default=0.5)
    ap.add_argument("--empty-tasks", type=int, default=200)
    args = ap.parse_args()
    M = datasets.load("cyclic")
    load0 = os.getloadavg()
    T = _calibrate(M, args.task_seconds)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        results = [_measure(M, T, args.tasks, args.empty_tasks, w, tmp) for w in (1, 2)]
        with SweepStore(tmp / "bench1.sqlite", readonly=True) as st:
            commit = _commit_ms(st.runs(), tmp)
    load1 = os.getloadavg()
    print(f"grid: {args.tasks} tasks of run_single(cyclic, 'uniform', T={T}) "
          f"(target {args.task_seconds} s each), cpu_count={os.cpu_count()}")
    print(f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}   "
          f"after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print()
    print("| workers | tasks | elapsed (s) | tasks/s | mean task (s) | idle between tasks, "
          "median / mean (ms) | overhead/task from totals (ms) | empty tasks/s "
          "| empty task: wall ms x workers | empty task: CPU ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['workers']} | {r['tasks']} | {r['elapsed']:.2f} | {r['rate']:.3f} | "
              f"{r['task_s']:.3f} | {r['gap_median_ms']:.1f} / {r['gap_mean_ms']:.1f} | "
              f"{r['overhead_ms']:.1f} | {r['empty_rate']:.1f} | "
              f"{r['empty_ms']:.1f} | {r['empty_cpu_ms']:.1f} |")
    print()
    print(f"speed-up 2 vs 1 workers: {results[1]['rate'] / results[0]['rate']:.2f}x "
          f"(target >= 1.8x)")
    print(f"SQLite commit of one run row (WAL, synchronous=NORMAL): {commit:.2f} ms")


if __name__ == "__main__":
    main()
