"""Regret-bound tables: every algorithm's guarantee next to the optimum C*.

One row per matrix (``--transpose``: one row per bound).  Every bound is restated
in one regret convention (the factor is shown), exact log T coefficients are also
given as a ratio to C*, and with --T the implied regret at that horizon.  Order
terms (no constant) are labelled and get neither a ratio nor a value at T.

examples:
  duelbound table --example cyclic --example multi_winner
  duelbound table matrix.txt --format latex --convention zoghi > bounds.tex
  duelbound table --example cyclic --T 1e6 --format csv
  duelbound table --example cyclic --bounds ccb,d-ts-th1 --plot bounds.png
"""

from __future__ import annotations

import argparse
import os

from duelbound.solvers.bound_terms import BOUNDS, DEFAULT_BOUNDS
from duelbound.solvers.tables import FORMATS
from duelbound.theory.errors import DuelboundError
from duelbound.theory.regret import CONVENTIONS

from .common import add_matrix_arguments, load_matrices

NAME = "table"
ORDER = 30
HELP = "compare the algorithms' regret bounds with C* (md, latex, csv, json, plot)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser, many=True)
    parser.add_argument("--format", choices=FORMATS, default="md", help="output format")
    parser.add_argument("--convention", choices=CONVENTIONS, default="komiyama",
                        help="regret convention of the table (default komiyama)")
    horizon = parser.add_mutually_exclusive_group()
    horizon.add_argument("--T", type=float, metavar="T",
                         help="horizon: also show the implied regret at T")
    horizon.add_argument("--log-T", type=float, metavar="LOGT", dest="log_T",
                         help="horizon given as log T")
    parser.add_argument("--bounds", metavar="NAMES",
                        help="comma-separated bounds (default: "
                             f"{','.join(DEFAULT_BOUNDS)}; all: {','.join(BOUNDS)})")
    parser.add_argument("--transpose", action="store_true",
                        help="one row per bound, one column group per matrix")
    parser.add_argument("--plot", metavar="FILE", help="log-scale chart (.png/.svg/.pdf)")
    for p, text in (("alpha", "CCB / D-TS parameter alpha > 0.5 (default 0.51)"),
                    ("epsilon", "D-TS / SCB epsilon >= 0 (default 0: the limit eps -> 0+)"),
                    ("beta", "D-TS log log T constant beta >= 2 (default 2: the limit)"),
                    ("delta", "failure probability for CCB / SCB Lemma 6 (0 < delta < 1)")):
        parser.add_argument(f"--{p}", type=float, default=None, help=text)


def run(args: argparse.Namespace) -> int:
    from duelbound.solvers.comparison import bound_table

    if args.plot and os.path.splitext(args.plot)[1].lower() not in (".png", ".svg", ".pdf"):
        raise DuelboundError(f"cannot plot to {args.plot!r}: use a .png, .svg or .pdf file")
    mats = load_matrices(args)
    names = ([n.strip() for n in args.bounds.split(",") if n.strip()]
             if args.bounds else None)
    params = {p: getattr(args, p) for p in ("alpha", "epsilon", "beta", "delta")
              if getattr(args, p) is not None}
    bt = bound_table(mats, bounds=names, convention=args.convention, log_T=args.log_T,
                     T=args.T, params=params)
    if args.plot:
        bt.plot(args.plot)
    print(bt.render(args.format, transpose=args.transpose))
    return 0
