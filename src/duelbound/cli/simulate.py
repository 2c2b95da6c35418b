"""Run the reference simulator's algorithms on a matrix (SPEC §6).

Prints, per algorithm, the mean ± std of R(T) in the komiyama convention, its
ratio to log T, the mean N_ij of the last run set and the duels/s; optionally a
plot (regret vs t, log-t axis, with C*·log t and C^E*·log t) and JSON.

examples:
  duelbound simulate --example cyclic --algorithms ecw-rmed,d-ts --T 1e5 --runs 4
  duelbound simulate matrix.txt --algorithms all --T 1e6 --runs 20 --seed 0 --plot r.png
"""

from __future__ import annotations

import argparse
import math

from duelbound.theory.errors import DuelboundError

from .common import add_matrix_arguments, horizon, load_matrix, write_json

NAME = "simulate"
ORDER = 40
HELP = "simulate dueling-bandit algorithms and measure their regret"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    parser.add_argument("--algorithms", default="ecw-rmed,d-ts", metavar="A,B,...",
                        help="comma-separated names, or 'all' (default: ecw-rmed,d-ts)")
    parser.add_argument("--T", type=horizon, default=10**5, help="horizon (1e6 notation ok)")
    parser.add_argument("--runs", type=int, default=10, help="independent runs (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--processes", type=int, default=None, help="worker processes")
    parser.add_argument("--plot", metavar="FILE", help="regret-vs-t plot (.png/.svg/.pdf)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON ('-': stdout)")


def run(args: argparse.Namespace) -> int:
    from duelbound.checks.records import plot_results
    from duelbound.checks.simulator import ALGORITHMS, get_algorithm, matrix_bounds, simulate

    M = load_matrix(args)
    names = list(ALGORITHMS) if args.algorithms.strip() == "all" else [
        get_algorithm(a).name for a in args.algorithms.split(",") if a.strip()]
    if not names:
        raise DuelboundError("--algorithms is empty")
    if args.runs < 1:
        raise DuelboundError("--runs must be ≥ 1")
    bounds = matrix_bounds(M) if args.plot else {}
    results = []
    logT = math.log(args.T) if args.T > 1 else 1.0
    if args.json != "-":
        print(f"matrix {M.name or '-'} (K = {M.K}), T = {args.T}, runs = {args.runs}, "
              f"seed = {args.seed}; regret in the komiyama convention")
        print(f"{'algorithm':<10} {'R(T) mean':>12} {'std':>10} {'R(T)/log T':>11} {'duels/s':>10}")
    for name in names:
        res = simulate(M, name, args.T, args.runs, args.seed, processes=args.processes)
        res.bounds = bounds
        results.append(res)
        fin = res.final_regret["komiyama"]
        if args.json != "-":
            std = fin.std(ddof=1) if fin.size > 1 else 0.0
            print(f"{name:<10} {fin.mean():>12.2f} {std:>10.2f} {fin.mean() / logT:>11.3f} "
                  f"{res.duels_per_second:>10.3g}")
    if args.plot:
        plot_results(results, path=args.plot)
    if args.json:
        write_json({"matrix": M.to_dict(), "results": [r.to_dict() for r in results]},
                   args.json)
    return 0
