"""Check the claims of the theory (SPEC §4) on hypothesis-generated matrices.

Each claim is an executable predicate with its source ([K16] Theorem 5, 6, (11), (12),
§4.4; [Z15] Lemma 7, 8).  For every claim the table gives the number of matrices
tried and the verdict; a failing claim prints its shrunk counterexample (the
matrix and both sides of the inequality).

examples:
  duelbound check-claims                       # n = 2000 per claim, seed 0
  duelbound check-claims --n 200 --claim z15-lemma7 --claim k16-eq12
  duelbound check-claims --json > claims.json
"""

from __future__ import annotations

import argparse

from .common import write_json

NAME = "check-claims"
ORDER = 50
HELP = "search for counterexamples to the theory's claims (hypothesis)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, default=2000, help="matrices per claim (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed (default 0)")
    parser.add_argument("--min-K", type=int, default=2, help="smallest K (default 2)")
    parser.add_argument("--max-K", type=int, default=8,
                        help="largest K (default 8; LP claims cap it at 6-7)")
    parser.add_argument("--claim", action="append", default=[], metavar="NAME",
                        help="check only this claim (repeatable); see --list")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SEC",
                        help="seconds per claim (verdict marked partial when reached)")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")


def run(args: argparse.Namespace) -> int:
    from duelbound.checks.claims import CLAIMS, check_claims

    if args.list:
        for c in CLAIMS:
            print(f"{c.name:<20} {c.source:<45} {c.statement}")
        return 0
    report = check_claims(args.n, args.seed, min_K=args.min_K, max_K=args.max_K,
                          claims=args.claim or None, time_limit=args.time_limit)
    if args.json:
        write_json(report.to_dict())
    else:
        print(report.table())
    return 0
