"""Regret-bound tables: every algorithm's guarantee next to the optimum C*.

One row per matrix (--transpose: one row per bound, one column group per matrix).
Every bound is restated in one regret convention (the factor is in the footnotes),
exact log T coefficients are also given as a ratio to C*, and with --T the implied
regret at that horizon.  Order terms (no constant) are labelled and get neither a
ratio nor a value at T.

Formats: md (default), latex (for papers: math labels, \\cite{...} sources, short
footnotes; wide tables are wrapped into stacked panels that fit a single-column
article page), csv (RFC 4180: one header row, then data; notes go to --notes FILE),
json (everything).

examples:
  duelbound table --example cyclic --example multi_winner
  duelbound table matrix.txt --format latex --bib refs.bib > bounds.tex
  duelbound table --example cyclic --example multi_winner --transpose --format latex
  duelbound table matrix.txt --format latex --long --latex-env table*
  duelbound table --example cyclic --T 1e6 --format csv --notes bounds-notes.txt
  duelbound table --example cyclic --bounds ccb,d-ts-th1 --plot bounds.png
  duelbound table --example cyclic --bounds all --format json
"""

from __future__ import annotations

import argparse
import sys

from ..errors import DuelboundError
from ..render import FORMATS, LatexStyle, notes_text, render, too_wide_message
from .common import (
    PLOT_EXTENSIONS,
    add_draws_arguments,
    add_feedback_arguments,
    add_latex_arguments,
    add_matrix_arguments,
    check_output_path,
    draws_options,
    feedback,
    horizon,
    input_count,
    latex_style,
    load_matrices,
    undefined_counts,
    write_atomically,
    write_bib,
)

NAME = "table"
ORDER = 30
HELP = "compare the algorithms' regret bounds with C* (md, latex, csv, json, plot)"


def _posterior_run(args: argparse.Namespace, style: LatexStyle) -> int:
    """Win counts whose estimate has no tournament: the posterior table of C* and C^E*
    (:func:`~duelbound.solvers.posterior_table.posterior_table`) instead of an error."""
    from ..solvers.posterior_table import posterior_table

    undefined = undefined_counts(args)
    if input_count(args) > len(undefined):
        raise DuelboundError(
            f"{undefined[0].name}: tied or never-compared pairs leave its estimate without a "
            "tournament, so it has no row in a bound table: give it alone (its posterior "
            "table), or --break-ties EPS for a perturbed matrix")
    refused = [opt for opt, on in (("--transpose", args.transpose), ("--plot", args.plot),
                                   ("--T/--log-T", args.T or args.log_T),
                                   ("--convention", args.convention != "komiyama")) if on]
    if refused:
        raise DuelboundError(f"{', '.join(refused)}: not available for an estimate without a "
                             "tournament (tied or never-compared pairs); its posterior table "
                             "has C* and C^E* only, komiyama convention")
    for C in undefined:
        print(f"duelbound: {C.name}: the estimate has tied or never-compared pairs; the table "
              "gives the posterior of C* and C^E* (duelbound bounds --interval for the whole "
              "report)", file=sys.stderr)
    table = posterior_table(undefined, **draws_options(args, feedback(args, default=True)))
    print(render(table, args.format, style), flush=True)
    if args.notes:
        write_atomically(args.notes, notes_text(table))
    write_bib(args.bib)
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..solvers.bound_terms import BOUNDS, DEFAULT_BOUNDS
    from ..theory.regret import CONVENTIONS

    add_matrix_arguments(parser, many=True)
    parser.add_argument("--format", choices=FORMATS, default="md",
                        help="output format (default md)")
    parser.add_argument("--convention", choices=CONVENTIONS, default="komiyama",
                        help="regret convention of every number in the table (default "
                             "komiyama; binary shows loose bounds and no ratios)")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--T", type=horizon, metavar="T",
                      help="horizon, an integer (1e6 notation ok): also show the implied "
                           "regret at T")
    when.add_argument("--log-T", type=float, metavar="LOGT", dest="log_T",
                      help="horizon given as log T")
    parser.add_argument("--bounds", metavar="NAMES",
                        help="comma-separated bound names, 'default' or 'all' (default: "
                             f"{','.join(DEFAULT_BOUNDS)}; all: {','.join(BOUNDS)})")
    parser.add_argument("--transpose", action="store_true",
                        help="one row per bound, one column group per matrix")
    parser.add_argument("--long", action="store_true",
                        help="long footnotes (expressions, parameters, readings of the papers);"
                             " with --transpose also kind, native convention, factor and "
                             "source columns")
    parser.add_argument("--notes", metavar="FILE",
                        help="write the title, convention, footnotes and cell notes as text "
                             "(the sidecar of --format csv, which holds data only)")
    parser.add_argument("--plot", metavar="FILE", help="log-scale chart (.png/.svg/.pdf)")
    add_latex_arguments(parser)
    add_draws_arguments(parser, "win counts whose estimate has no tournament (tied or "
                        "never-compared pairs): the posterior table")
    add_feedback_arguments(parser)
    g = parser.add_argument_group("bound parameters")
    for p, text in (("alpha", "CCB / D-TS parameter alpha > 0.5 (default 0.51)"),
                    ("epsilon", "D-TS / SCB epsilon >= 0 (default 0: the limit eps -> 0+)"),
                    ("beta", "D-TS log log T constant beta >= 2 (default 2: the limit)"),
                    ("delta", "failure probability for CCB / SCB Lemma 6 (0 < delta < 1)")):
        g.add_argument(f"--{p}", type=float, default=None, help=text)


def run(args: argparse.Namespace) -> int:
    from ..solvers.comparison import bound_table, resolve_bounds

    check_output_path(args.plot, PLOT_EXTENSIONS, "--plot")
    check_output_path(args.notes, None, "--notes")
    check_output_path(getattr(args, "bib", None), None, "--bib")
    style = latex_style(args)
    if undefined_counts(args):
        return _posterior_run(args, style)
    mats = load_matrices(args)
    params = {p: getattr(args, p) for p in ("alpha", "epsilon", "beta", "delta")
              if getattr(args, p) is not None}
    bt = bound_table(mats, bounds=resolve_bounds(args.bounds), convention=args.convention,
                     log_T=args.log_T, T=args.T, params=params)
    table = bt.to_table(args.transpose, args.long)
    print(render(table, args.format, style), flush=True)  # first: a late write keeps it
    if args.plot:
        bt.plot(args.plot)
    if args.notes:
        write_atomically(args.notes, notes_text(table))
    write_bib(args.bib)
    if args.format == "latex":
        hint = ("fewer matrices per table or fewer --bounds" if args.transpose else
                "--transpose or fewer --bounds")
        msg = too_wide_message([table], style, hint)
        if msg:
            print(msg, file=sys.stderr)
    return 0
