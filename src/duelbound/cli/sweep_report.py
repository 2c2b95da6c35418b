"""Summarise a sweep store: per (matrix, algorithm), runs, mean ± std and quantiles of the
final regret, R(T)/ln T next to C* and C^E* of the matrix.

Safe while a sweep is writing the store: the report reads one committed snapshot.

examples:
  duelbound sweep-report results.sqlite
  duelbound sweep-report results.sqlite --format latex --convention zoghi
  duelbound sweep-report results.sqlite --format json --runs      # one record per run
  duelbound sweep-report results.sqlite --plot regret.png
"""

from __future__ import annotations

import argparse

from duelbound.theory.regret import CONVENTIONS

from .common import write_json

NAME = "sweep-report"
ORDER = 71
HELP = "tables and plots of a sweep store (safe while the sweep runs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("store", metavar="STORE.sqlite", help="store written by duelbound sweep")
    parser.add_argument("--format", choices=("md", "latex", "csv", "json"), default="md")
    parser.add_argument("--convention", choices=CONVENTIONS, default="komiyama",
                        help="regret convention of the table (default komiyama)")
    parser.add_argument("--runs", action="store_true",
                        help="with --format json: one record per finished run")
    parser.add_argument("--failed", action="store_true",
                        help="with --runs: list the failed runs (with their errors) instead")
    parser.add_argument("--plot", metavar="FILE", help="regret curves with C* ln t (.png/.svg)")


def run(args: argparse.Namespace) -> int:
    from duelbound.checks.store import SweepStore
    from duelbound.checks.sweep import bounds_report_table, plot_report, report_table
    from duelbound.solvers.tables import concat
    from duelbound.theory.errors import DuelboundError

    if args.runs:
        if args.format != "json":
            raise DuelboundError("--runs lists records as JSON: add --format json")
        with SweepStore(args.store, readonly=True) as st:
            write_json(st.runs("failed" if args.failed else "ok"))
        return 0
    with SweepStore(args.store, readonly=True) as st:
        has_runs, has_bounds = st.count() > 0, bool(st.bounds(None))
    tables = [report_table(args.store, args.convention)] if has_runs or not has_bounds else []
    if has_bounds:
        tables.append(bounds_report_table(args.store))
    print(concat(tables, args.format))
    if args.plot:
        plot_report(args.store, args.plot, args.convention)
    return 0
