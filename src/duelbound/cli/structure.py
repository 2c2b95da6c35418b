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
from typing import Any

from .common import (
    PLOT_EXTENSIONS,
    add_json_option,
    add_matrix_arguments,
    check_json_option,
    check_output_path,
    emit_json,
    json_only,
    load_counts,
    load_matrix,
)

NAME = "structure"
ORDER = 10
HELP = "tournament structure: winners, L vector, top cycle, 3-cycles, gaps"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    add_json_option(parser)
    parser.add_argument("--plot", metavar="FILE", help="draw the tournament (.png/.svg/.pdf)")
    parser.add_argument("--draws", type=int, default=1000, metavar="N",
                        help="posterior draws when counts leave the tournament undefined "
                             "(tied or never-compared pairs; default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of those draws")
    parser.add_argument("--full", action="store_true",
                        help="print every list in full (default: clipped to ~100 characters)")


def _posterior_answer(args: argparse.Namespace, C: Any) -> int:
    """Counts whose µ̂ has no tournament (tied or never-compared pairs): the posterior
    distribution of the tournament instead of an error (docs/uncertainty.md)."""
    import sys

    from ..theory.errors import DuelboundError
    from ..theory.posterior import MAX_SIGN_DRAWS, posterior_structure

    if args.plot:
        raise DuelboundError("--plot draws the tournament of mu_hat, which is undefined here "
                             "(tied or never-compared pairs); --break-ties EPS draws the "
                             "perturbed one")
    pairs = C.K * (C.K - 1) // 2
    draws = args.draws
    if pairs * draws > MAX_SIGN_DRAWS:
        if pairs * 10 > MAX_SIGN_DRAWS:
            raise DuelboundError(f"the tournament of mu_hat is undefined and its posterior over "
                                 f"{pairs} pairs is too large to sample (K = {C.K}); compare the "
                                 "missing pairs, or drop arms")
        draws = MAX_SIGN_DRAWS // pairs
        print(f"duelbound: {draws} posterior draws instead of {args.draws} (K = {C.K}: "
              f"{pairs} pairs per draw)", file=sys.stderr)
    ps = posterior_structure(C, draws=draws, seed=args.seed)
    u = ps.undefined
    print(f"duelbound: the tournament of mu_hat is undefined ({u.n_tied} tied, "
          f"{u.n_never} never compared pair(s)); answering with its posterior "
          f"distribution", file=sys.stderr)
    if not json_only(args):
        print(ps.render(full=args.full), flush=True)
    emit_json(args, {"plug_in": {"defined": False, "tied": [list(p) for p in u.tied],
                                 "never_compared": [list(p) for p in u.never]},
                     "posterior": ps.to_dict()}, indent=2 if C.K <= 16 else None)
    return 0


def run(args: argparse.Namespace) -> int:
    check_output_path(args.plot, PLOT_EXTENSIONS, "--plot")
    check_json_option(args)
    counts = load_counts(args)
    if counts is not None and args.break_ties is None:
        from ..theory.posterior import undefined_pairs

        if undefined_pairs(counts.wins, limit=0):
            return _posterior_answer(args, counts)
    from ..theory.tournament import structure

    M = load_matrix(args)
    s = structure(M)
    if not json_only(args):
        print(s.render(M, full=args.full), flush=True)
    emit_json(args, s.named_dict(M))
    if args.plot:  # after the results: a late write failure does not lose them
        from ..theory.draw import draw_tournament

        draw_tournament(M, args.plot)
    return 0
