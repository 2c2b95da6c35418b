"""Duels per second per core of the reference simulator, side by side with duelpy 1.0.0.

Run:  /work/venv/bin/python benchmarks/bench_simulator.py [--T 1e6] [--T-duelpy 2e4]
          [--T-duelpy-cw 2000] [--algorithms a,b,...]

Matrices: K = 5 ``mslr5_condorcet`` (../shared/matrices) and K = 16
``generators.random_matrix(16, seed=0)``. Ours: one process, compiled code
warmed up (compilation excluded), ``RunRecord.wall_time``. duelpy (the
``bench`` extra, optional): its implementation of each shared algorithm with
``MatrixFeedback`` on the same matrix, timed over ``algorithm.run()`` with a
shorter horizon (it is pure Python); the ratio is duels/s ours over duels/s duelpy,
both at duelpy's horizon (per-duel cost falls with t for the RMED family, so equal
horizons are the fair comparison); "ratio vs ours at T" uses our rate at T.
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from duelbound.checks.simulator import ALGORITHMS, run_single
from duelbound.theory import generators
from duelbound.theory.io import read_matrix

SHARED = Path(__file__).resolve().parents[2] / "shared" / "matrices"

# our name -> (duelpy module, class name)
DUELPY = {
    "ccb": ("copeland_confidence_bound", "CopelandConfidenceBound"),
    "scb": ("scalable_copeland_bandits", "ScalableCopelandBandits"),
    "cw-rmed": ("cw_rmed", "CwRmed"),
    "d-ts": ("double_thompson_sampling", "DoubleThompsonSampling"),
    "d-ts+": ("double_thompson_sampling", "DoubleThompsonSamplingPlus"),
    "savage": ("savage", "Savage"),
    "rucb": ("relative_ucb", "RelativeUCB"),
    "rmed1": ("rmed", "Rmed1"),
}


def _horizon(text: str) -> int:
    return int(float(text))


def ours(M, name: str, T: int) -> float:
    run_single(M, name, 100, 0)  # compile / load from cache
    rec = run_single(M, name, T, 1)
    return T / rec.wall_time


def duelpy_rate(M, name: str, T: int) -> float | None:
    if name not in DUELPY:
        return None
    # duelpy 1.0.0 uses aliases removed from NumPy 2 (np.float, np.infty): restore them
    # for the benchmark only.
    for alias, value in (("float", float), ("infty", np.inf)):
        if alias not in np.__dict__:
            setattr(np, alias, value)
    try:
        import importlib

        from duelpy.feedback import MatrixFeedback
    except ImportError:
        return None
    mod, cls = DUELPY[name]
    algo_cls = getattr(importlib.import_module(f"duelpy.algorithms.{mod}"), cls)
    class Counting(MatrixFeedback):
        duels = 0

        def duel(self, a, b):
            self.duels += 1
            return super().duel(a, b)

        def duel_repeatedly(self, a, b, duel_count):  # batched duels count too
            self.duels += duel_count
            return super().duel_repeatedly(a, b, duel_count)

    fb = Counting(np.array(M.values), random_state=np.random.RandomState(1))
    kwargs = {"time_horizon": T}
    if name != "savage":
        kwargs["random_state"] = np.random.RandomState(1)
    algo = algo_cls(fb, **kwargs)
    start = time.perf_counter()
    try:
        while fb.duels < T and not algo.is_finished():
            algo.step()
    except Exception as exc:  # noqa: BLE001 - duelpy signals its budget by an exception
        if type(exc).__name__ != "TimeBudgetExceededException":
            raise
    return fb.duels / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=_horizon, default=10**6)
    ap.add_argument("--T-duelpy", type=_horizon, default=20_000)
    ap.add_argument("--T-duelpy-cw", type=_horizon, default=2000,
                    help="duelpy's horizon for cw-rmed (an LP per step)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    args = ap.parse_args()
    mats = [read_matrix(SHARED / "mslr5_condorcet.txt"),
            generators.random_matrix(16, seed=0, name="random16")]
    print(f"ours T = {args.T:.0e}; duelpy T = {args.T_duelpy:.0e} "
          f"(cw-rmed: {args.T_duelpy_cw:.0e})")
    print("| algorithm | K | ours duels/s at T | duelpy T | ours at duelpy T | duelpy duels/s "
          "| ratio (same T) | ratio vs ours at T |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.algorithms.split(","):
        for M in mats:
            r = ours(M, name, args.T)
            Td = args.T_duelpy_cw if name == "cw-rmed" else args.T_duelpy
            try:
                d = duelpy_rate(M, name, Td)
                note = ""
            except Exception as exc:  # noqa: BLE001 - report duelpy failures, keep going
                d, note = None, f" ({type(exc).__name__})"
            r_same = ours(M, name, Td) if d is not None else None
            cells = ["-" if d is None else f"{x:.3g}" for x in (r_same, d)]
            ratios = ["-" if d is None else f"{x / d:.0f}x" for x in (r_same, r)]
            print(f"| {name} | {M.K} | {r:.3g} | {Td:.0e} | {cells[0]} | {cells[1]}{note} | "
                  f"{ratios[0]} | {ratios[1]} |", flush=True)


if __name__ == "__main__":
    main()
