"""Verify a dueling-bandit implementation against the theory and the reference simulator.

The algorithm is given as MODULE:FACTORY, where FACTORY(K, T, seed) returns either
an object with select() -> (i, j) and update(i, j, i_won)  (--protocol select), or
a callable run(duel, T) that calls duel(i, j) -> bool until done (--protocol duel);
or as the name of a bundled algorithm.  Each run executes in its own process.
Verdicts per matrix: protocol, non-winner share, sublinear, lower bound (vs C*),
claimed (with --claimed), reference (with --reference).  Exit code 1 on any FAIL.

examples:
  duelbound verify examples.my_algorithms:dts --reference d-ts
  duelbound verify mypkg.algos:make --protocol duel --T 1e5 --runs 8 --json report.json
  duelbound verify ecw-rmed --matrices cyclic --matrices my_matrix.txt
"""

from __future__ import annotations

import argparse
import os
import sys

from .common import horizon, write_json

NAME = "verify"
ORDER = 60
HELP = "verify an outside implementation (protocol, consistency, C*, reference)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", metavar="MODULE:FACTORY",
                        help="factory of the algorithm, or a bundled algorithm name")
    parser.add_argument("--protocol", choices=("select", "duel"), default="select")
    parser.add_argument("--matrices", action="append", default=[], metavar="NAME|FILE",
                        help="bundled example or matrix file (repeatable; default: cyclic, "
                             "multi_winner, unique_copeland)")
    parser.add_argument("--T", type=horizon, default=20_000, help="horizon (accepts 1e5)")
    parser.add_argument("--runs", type=int, default=4, help="runs per matrix (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reference", metavar="NAME", help="bundled algorithm to compare with")
    parser.add_argument("--claimed", type=float, metavar="COEF",
                        help="claimed coefficient of log T (komiyama convention)")
    parser.add_argument("--time-limit", type=float, default=120.0, metavar="SEC",
                        help="seconds per run (default 120)")
    parser.add_argument("--budget", type=float, default=900.0, metavar="SEC",
                        help="wall-clock seconds for everything (default 900)")
    parser.add_argument("--workers", type=int, default=None, help="parallel runs (default: CPUs)")
    parser.add_argument("--json", metavar="FILE", help="also write the JSON report ('-': stdout)")


def _matrices(specs: list[str]):
    from duelbound.theory import examples
    from duelbound.theory.io import read_matrix

    return [examples.load(s) if s in examples.names() else read_matrix(s) for s in specs] or None


def run(args: argparse.Namespace) -> int:
    from duelbound.checks.harness import load_factory, verify

    if os.getcwd() not in sys.path:  # MODULE:FACTORY relative to the working directory
        sys.path.insert(0, os.getcwd())
    factory = load_factory(args.algorithm)
    report = verify(factory, _matrices(args.matrices), T=args.T, runs=args.runs,
                    reference=args.reference, protocol=args.protocol,
                    claimed_coefficient=args.claimed, time_limit=args.time_limit,
                    budget=args.budget, seed=args.seed, workers=args.workers,
                    name=args.algorithm)
    if args.json == "-":
        write_json(report.to_dict())
    else:
        print(report.table())
        if args.json:
            write_json(report.to_dict(), args.json)
    return 1 if report.verdict == "FAIL" else 0
