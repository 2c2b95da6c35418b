"""Timing and frequentist coverage of lower_bound_interval (docs/uncertainty.md).

Timing: K = 16 (``random_matrix(16, 0)``), 10^4 comparisons spread evenly over the
pairs, posterior intervals with several draw counts; the first call of a process also
pays numba's cache loading, so it is timed separately.

Coverage: for matrices whose C* is known, draw counts W_ab ~ Binomial(n, µ_ab) per pair,
compute the interval, and count how often it contains the true C* (and C^E*); also the
share of replications with an unbounded upper end and the mean P(winner set right).

    python benchmarks/bench_interval.py --timing
    python benchmarks/bench_interval.py --coverage --reps 200 --draws 400
    python benchmarks/bench_interval.py --coverage --method bootstrap --reps 200
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from duelbound.solvers import ecw_bound, lower_bound, lower_bound_interval
from duelbound.theory import datasets
from duelbound.theory.counts import sample_counts
from duelbound.theory.generators import random_matrix


def timing(draw_counts: list[int]) -> None:
    K, total = 16, 10_000
    M = random_matrix(K, 0)
    P = K * (K - 1) // 2
    n = np.full(P, total // P)
    n[: total - n.sum()] += 1
    W = sample_counts(M.values, n, np.random.default_rng(1))
    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print(f"K = {K}, {int(n.sum())} comparisons ({n.min()}-{n.max()} per pair), "
          f"true C* = {lower_bound(M).value:.6g}\n")
    t = time.perf_counter()
    lower_bound_interval(W, draws=10, seed=0)
    print(f"first call (numba cache loading, 10 draws): {time.perf_counter() - t:.2f} s\n")
    print("| draws | s | LP solves | LP models | re-used bases | tournaments | C* plug-in "
          "| C* interval | C^E* interval | P(winners) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in draw_counts:
        t = time.perf_counter()
        rep = lower_bound_interval(W, draws=d, seed=0)
        s = time.perf_counter() - t
        st = rep.stats
        up = "unbounded" if rep.cstar.upper is None else f"{rep.cstar.upper:.4g}"
        upe = "unbounded" if rep.ecw.upper is None else f"{rep.ecw.upper:.4g}"
        print(f"| {d} | {s:.2f} | {st['lp_solves']} | {st['models']} | {st['reused']} | "
              f"{rep.tournaments} | {rep.cstar.plug_in:.4g} | [{rep.cstar.lower:.4g}, {up}] | "
              f"[{rep.ecw.lower:.4g}, {upe}] | {rep.p_winners:.3f} |")


def cases() -> list[tuple[str, np.ndarray, int]]:
    """(name, µ, comparisons per pair)."""
    K8 = random_matrix(8, 1, gap_range=(0.1, 0.4)).values
    out = []
    for name, ns in (("cyclic", (100, 1000)), ("mslr5", (1000, 10_000)),
                     ("unique_copeland", (100, 1000))):
        out += [(name, datasets.load(name).values, n) for n in ns]
    out += [("random K=8", K8, n) for n in (200, 1000)]
    return out


def coverage(reps: int, draws: int, level: float, method: str, only: str | None,
             per_pair: int | None = None) -> None:
    from duelbound.theory import PreferenceMatrix

    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print(f"method {method}, level {level}, {reps} replications, {draws} draws each; "
          f"binomial tolerance ±{3 * math.sqrt(level * (1 - level) / reps):.3f} (3 sd)\n")
    print("| matrix | K | n per pair | true C* | C* coverage | C^E* coverage | unbounded C* "
          "| median width C* | mean P(winners) | s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, mu, n in cases():
        if (only and only not in name) or (per_pair and n != per_pair):
            continue
        M = PreferenceMatrix(mu)
        truth, truth_e = lower_bound(M).value, ecw_bound(M).value
        rng = np.random.default_rng(12345)
        hit = hit_e = unb = 0
        widths, pw = [], []
        t = time.perf_counter()
        for r in range(reps):
            rep = lower_bound_interval(sample_counts(mu, n, rng), level=level, method=method,
                                       draws=draws, seed=r)
            up = math.inf if rep.cstar.upper is None else rep.cstar.upper
            hit += rep.cstar.lower <= truth <= up
            hit_e += rep.ecw.lower <= truth_e <= (rep.ecw.upper or math.inf)
            unb += rep.cstar.upper is None
            widths.append(up - rep.cstar.lower)
            if rep.p_winners is not None:
                pw.append(rep.p_winners)
        s = time.perf_counter() - t
        pwm = f"{np.mean(pw):.3f}" if pw else "-"
        print(f"| {name} | {mu.shape[0]} | {n} | {truth:.4g} | {hit / reps:.3f} | "
              f"{hit_e / reps:.3f} | {unb / reps:.3f} | {np.median(widths):.4g} | {pwm} | "
              f"{s:.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--method", default="posterior")
    ap.add_argument("--only", default=None, help="coverage: only matrices whose name has this")
    ap.add_argument("--n", type=int, default=None, help="coverage: only this n per pair")
    ap.add_argument("--timing-draws", default="200,400,1000")
    args = ap.parse_args()
    if not (args.timing or args.coverage):
        args.timing = True
    if args.timing:
        timing([int(x) for x in args.timing_draws.split(",")])
    if args.coverage:
        coverage(args.reps, args.draws, args.level, args.method, args.only, args.n)


if __name__ == "__main__":
    main()
