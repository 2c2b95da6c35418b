"""Tournament structure of a preference matrix (docs/math.md §2).

Prints K, the loss vector L, Copeland winners, whether a Condorcet winner exists,
the top cycle, the number of 3-cycles, Δ_min and the status of Assumption A.

examples:
  duelbound structure --example cyclic
  duelbound structure matrix.txt --json
  duelbound structure matrix.txt --plot tournament.png
  duelbound structure --comparisons duels.csv      # a log: winner,loser[,count]
  duelbound structure --counts wins.csv --name my-run
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import DuelboundError
from .common import (
    PLOT_EXTENSIONS,
    add_json_option,
    add_matrix_arguments,
    check_json_option,
    check_one_source,
    check_output_path,
    emit_json,
    json_only,
    load_counts,
    load_matrix,
    positive_int,
)

NAME = "structure"
ORDER = 10
HELP = "tournament structure: winners, L vector, top cycle, 3-cycles, gaps"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    add_json_option(parser)
    parser.add_argument("--plot", metavar="FILE", help="draw the tournament (.png/.svg/.pdf)")
    parser.add_argument("--draws", type=positive_int, default=1000, metavar="N",
                        help="posterior draws when counts leave the tournament undefined "
                             "(tied or never-compared pairs; default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of those draws")
    parser.add_argument("--full", action="store_true",
                        help="print every list in full (default: clipped to ~100 characters)")


def run(args: argparse.Namespace) -> int:
    check_output_path(args.plot, PLOT_EXTENSIONS, "--plot")
    check_json_option(args)
    counts = load_counts(args)
    if counts is None:
        from ..theory.tournament import structure

        M = load_matrix(args)
        ans: Any = structure(M)
        text, data = ans.render(M, full=args.full), ans.named_dict(M)
    else:  # the tournament of µ̂, or its posterior where µ̂ has none (tied, never compared)
        from ..solvers.estimates import answer_counts

        check_one_source(args)
        ans = answer_counts(counts, question="structure", draws=args.draws, seed=args.seed,
                            break_ties=args.break_ties)
        M = ans.matrix
        if M is None and args.plot:
            raise DuelboundError("--plot draws the tournament of mu_hat, which is undefined "
                                 "here (tied or never-compared pairs); --break-ties EPS draws "
                                 "the perturbed one")
        for note in ans.notes:
            print(f"duelbound: {note}", file=sys.stderr)
        text, data = ans.text(full=args.full), ans.to_dict()
    if not json_only(args):
        print(text, flush=True)
    emit_json(args, data, indent=2 if (counts.K if counts else M.K) <= 16 else None)
    if args.plot:  # after the results: a late write failure does not lose them
        from ..theory.draw import draw_tournament

        draw_tournament(M, args.plot)
    return 0
