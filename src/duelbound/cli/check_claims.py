"""Check the claims of the theory (docs/math.md §8) on hypothesis-generated matrices.

Each claim is an executable predicate with its source ([K16] Theorem 5, 6, (11), (12),
§4.4; [Z15] Lemma 7, 8).  For every claim the table gives the number of matrices
tried and errored and the verdict.  A claim "fails" only with a counterexample whose
two sides, recomputed outside the search in certified arithmetic (exact rationals,
the exact LP certificate, enclosures of the logarithms), strictly violate it; the
shrunk matrix and both enclosures are printed.  A solver failure on a matrix is
counted as an error, never as a violation.

exit codes:
  0  every claim holds on the matrices checked (or is deferred)
  1  a claim fails: certified counterexample (the known finding k16-eq11-le-eq12
     makes a run of every claim exit 1)
  2  error: some claim could not be checked (no LP solver, solver failing on every
     matrix, a violation that could not be re-certified), or bad usage; wins over 1

progress: one bar per claim on stderr when stderr is a terminal or with --progress;
--quiet turns it off.

examples:
  duelbound check-claims                       # n = 2000 per claim, seed 0
  duelbound check-claims --n 200 --claim z15-lemma7 --claim k16-eq12
  duelbound check-claims --json > claims.json
"""

from __future__ import annotations

import argparse
import sys

from .common import (
    add_feedback_arguments,
    add_json_option,
    check_json_option,
    emit_json,
    feedback,
    json_only,
)

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
    add_json_option(parser, "the report")
    add_feedback_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..checks.claims.catalogue import CLAIMS, check_claims

    if args.list:
        for c in CLAIMS:
            print(f"{c.name:<20} {c.source:<45} {c.statement}")
        return 0
    check_json_option(args)
    progress = feedback(args, default=sys.stderr.isatty())
    report = check_claims(args.n, args.seed, min_K=args.min_K, max_K=args.max_K,
                          claims=args.claim or None, time_limit=args.time_limit,
                          progress=progress)
    if not json_only(args):
        print(report.table())
    emit_json(args, report.to_dict())
    return report.exit_code()
