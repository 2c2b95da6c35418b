"""Power and false-alarm rate of the suite-level reference check of ``duelbound verify``.

The pooled check (:func:`duelbound.checks.verify.verdicts.pooled_reference_check`) compares the
final regrets of the user's runs with the reference's, matrix by matrix, through a
stratified Hodges–Lehmann ratio with a bootstrap interval.  This script measures how
often it says WARN ("significantly worse") when the user's algorithm has ``ratio``
times the reference's regret: a pool of reference runs per matrix (compiled, fast) is
split into a "user" sample scaled by ``ratio`` and an independent reference sample —
the shift model the check is built for.  ratio = 1 gives the false-alarm rate.

    python benchmarks/power_verify.py --algorithm d-ts --T 20000 --pool 200 --trials 200

prints a table: runs per matrix × ratio → P(WARN).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from duelbound.checks.simulate.simulator import run_single
from duelbound.checks.verify.harness import DEFAULT_MATRICES
from duelbound.checks.verify.verdicts import pooled_reference_check
from duelbound.theory import datasets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--algorithm", default="d-ts")
    ap.add_argument("--T", type=int, default=20_000)
    ap.add_argument("--pool", type=int, default=200)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--runs", default="5,10")
    ap.add_argument("--ratios", default="1.0,1.1,1.2,1.3,1.5")
    args = ap.parse_args()
    t0 = time.perf_counter()
    pools = []
    for name in DEFAULT_MATRICES:
        M = datasets.load(name)
        pools.append(np.array([run_single(M, args.algorithm, args.T, 10_000 + s
                                          ).final_regret["komiyama"]
                               for s in range(args.pool)]))
    print(f"pools: {args.pool} runs of {args.algorithm} at T = {args.T} per matrix "
          f"({time.perf_counter() - t0:.0f} s)")
    rng = np.random.default_rng(0)
    ratios = [float(x) for x in args.ratios.split(",")]
    print("| runs per matrix | " + " | ".join(f"ratio {r:g}" for r in ratios) + " |")
    print("|---|" + "---|" * len(ratios))
    for n in (int(x) for x in args.runs.split(",")):
        row = []
        for ratio in ratios:
            warn = 0
            for trial in range(args.trials):
                pairs = []
                for pool in pools:
                    idx = rng.permutation(pool.size)
                    pairs.append((ratio * pool[idx[:n]], pool[idx[n:2 * n]]))
                chk = pooled_reference_check(pairs, args.algorithm, seed=trial, n_boot=400)
                warn += chk.verdict == "WARN"
            row.append(f"{warn / args.trials:.2f}")
        print(f"| {n} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
