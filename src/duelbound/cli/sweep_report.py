"""Summarise a sweep store: per (matrix, algorithm), runs, mean ± std and quantiles of the
final regret, R(T)/ln T next to C* and C^E* of the matrix.

Safe while a sweep is writing the store: the report reads one committed snapshot.

examples:
  duelbound sweep-report results.sqlite
  duelbound sweep-report results.sqlite --format latex --convention zoghi --bib refs.bib
  duelbound sweep-report results.sqlite --format csv --table runs --notes report-notes.txt
  duelbound sweep-report results.sqlite --format json --runs      # one record per run
  duelbound sweep-report results.sqlite --plot regret.png
"""

from __future__ import annotations

import argparse
import sys

from .common import (
    PLOT_EXTENSIONS,
    add_latex_arguments,
    check_output_path,
    latex_style,
    write_atomically,
    write_bib,
    write_json,
)

NAME = "sweep-report"
ORDER = 71
HELP = "tables and plots of a sweep store (safe while the sweep runs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..theory.regret import CONVENTIONS

    parser.add_argument("store", metavar="STORE.sqlite", help="store written by duelbound sweep")
    parser.add_argument("--format", choices=("md", "latex", "csv", "json"), default="md")
    parser.add_argument("--convention", choices=CONVENTIONS, default="komiyama",
                        help="regret convention of the table (default komiyama)")
    parser.add_argument("--runs", action="store_true",
                        help="with --format json: one record per finished run")
    parser.add_argument("--failed", action="store_true",
                        help="with --runs: list the failed runs (with their errors) instead")
    parser.add_argument("--plot", metavar="FILE",
                        help="regret curves: mean, 10-90 %% quantile band, C* ln t, C^E* ln t "
                             "(.png/.svg/.pdf)")
    parser.add_argument("--log-y", action="store_true", help="logarithmic regret axis in --plot")
    parser.add_argument("--notes", metavar="FILE",
                        help="write titles, convention and footnotes as text (the sidecar of "
                             "--format csv, which holds data only)")
    parser.add_argument("--table", choices=("auto", "runs", "bounds"), default="auto",
                        help="which table: the simulation runs, the bound rows, or (auto) "
                             "those the store holds; CSV holds one table, so pick one when "
                             "the store has both")
    add_latex_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..checks.sweep.runner import bounds_report_table, plot_report, report_table
    from ..checks.sweep.store import SweepStore
    from ..errors import DuelboundError
    from ..solvers.tables import concat, notes_text, too_wide_message

    check_output_path(args.plot, PLOT_EXTENSIONS, "--plot")
    check_output_path(args.notes, None, "--notes")
    check_output_path(args.bib, None, "--bib")
    if args.runs:
        if args.format != "json":
            raise DuelboundError("--runs lists records as JSON: add --format json")
        with SweepStore(args.store, readonly=True) as st:
            write_json(st.runs("failed" if args.failed else "ok"))
        return 0
    with SweepStore(args.store, readonly=True) as st:
        has_runs, has_bounds = st.count() > 0, bool(st.bounds(None))
    want_runs = args.table == "runs" or (args.table == "auto" and (has_runs or not has_bounds))
    want_bounds = args.table == "bounds" or (args.table == "auto" and has_bounds)
    if args.format == "csv" and want_runs and want_bounds:
        raise DuelboundError("the store holds simulation runs and bound rows, and a CSV file "
                             "holds one table: add --table runs or --table bounds")
    tables = [report_table(args.store, args.convention)] if want_runs else []
    if want_bounds:
        tables.append(bounds_report_table(args.store))
    for t in tables:  # rows are identified by these columns in every LaTeX panel
        keys = [c.key for c in t.columns]
        t.index = tuple(k for k in ("matrix", "algorithm", "T") if k in keys)
    style = latex_style(args)
    if args.notes:
        write_atomically(args.notes, "\n\n".join(notes_text(t) for t in tables))
    write_bib(args.bib)
    print(concat(tables, args.format, style))
    if args.format == "latex":
        msg = too_wide_message(tables, style, "report fewer algorithms' parameters per row")
        if msg:
            print(msg, file=sys.stderr)
    if args.plot:
        plot_report(args.store, args.plot, args.convention, log_y=args.log_y)
    return 0
