"""List the bundled preference matrices, or show one with its citation.

Every name works as --example NAME in the other commands.  Published matrices
carry their source; a dataset with an exact tie (arxiv6) needs --break-ties EPS.

examples:
  duelbound datasets
  duelbound datasets arxiv6
  duelbound datasets --json
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import add_json_option, check_json_option, emit_json, json_only

NAME = "datasets"
ORDER = 5
HELP = "list the bundled matrices (published data with citations, and examples)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="show one dataset in full")
    add_json_option(parser)


def _winner(d: Any) -> str:
    return "-" if d.condorcet_winner is None else str(d.condorcet_winner)


def format_list(items: list[Any]) -> str:
    head = f"{'name':<16} {'K':>3}  {'Condorcet':>9}  {'Copeland':<10} {'ties':<7} source"
    lines = [head, "-" * len(head)]
    for d in items:
        ties = ",".join(f"({i},{j})" for i, j in d.ties) or "-"
        cop = ",".join(map(str, d.copeland_winners))
        lines.append(f"{d.name:<16} {d.K:>3}  {_winner(d):>9}  {cop:<10} {ties:<7} {d.source}")
    return "\n".join(lines)


def format_one(d: Any) -> str:
    lines = [f"{d.name}: {d.title}", f"source            {d.citation}",
             f"K                 {d.K}", f"Condorcet winner  {_winner(d)}",
             f"Copeland winners  {list(d.copeland_winners)}"]
    if d.arms:
        lines.append(f"arms              {', '.join(d.arms)}")
    if d.ties:
        lines.append(f"ties              {[list(p) for p in d.ties]}: exact ties violate the "
                     f"no-ties assumption; use --example {d.name} --break-ties EPS")
    if d.note:
        lines.append(f"note              {d.note}")
    lines.append("matrix (row i, column j = P(i beats j)):")
    lines += ["  " + " ".join(f"{v:<10.8g}" for v in row).rstrip() for row in d.rows]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from ..theory import datasets

    check_json_option(args)
    if args.name:
        d = datasets.get(args.name)
        if not json_only(args):
            print(format_one(d))
        emit_json(args, d.to_dict())
        return 0
    items = [datasets.get(n) for n in datasets.names()]
    if not json_only(args):
        print(format_list(items))
    emit_json(args, [d.to_dict() for d in items])
    return 0
