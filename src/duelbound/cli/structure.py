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
from collections.abc import Sequence
from typing import Any

from ..theory import tournament as st
from ..theory.errors import DuelboundError
from ..theory.matrix import PreferenceMatrix
from .common import (
    PLOT_EXTENSIONS,
    add_json_option,
    add_matrix_arguments,
    check_json_option,
    check_output_path,
    clip,
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


#: Characters of a clipped list after the 18-character label: lines stay under ~120.
_WIDTH = 72


def _arms(M: PreferenceMatrix | None, idx: Sequence[int], full: bool = False) -> str:
    """A list of arms: ``0, 2``, or ``a, c  [0, 2]`` when the arms are named (clipped; the
    indices only when the names fit)."""
    if M is None or M.arms is None:
        return "[" + clip([str(i) for i in idx], full=full, width=_WIDTH) + "]"
    names = clip([M.label(i) for i in idx], full=full, width=_WIDTH)
    if "more (--json" in names:  # clipped: the indices would repeat the clipping
        return names
    return f"{names}  [{clip([str(i) for i in idx], full=full, width=_WIDTH)}]"


def format_structure(s: st.Structure, M: PreferenceMatrix | None = None,
                     full: bool = False) -> str:
    """The readable summary; with ``M`` given, arms are shown by name as well as index.

    Lists are clipped to ~100 characters ("… N more"; ``full`` shows everything); above
    K = 12 the losses are sorted, fewest first (what matters: who is near the top).
    """
    def label(i: int) -> str:
        return M.label(i) if M is not None and M.arms is not None else str(i)

    order = sorted(range(s.K), key=lambda i: (s.losses[i], i)) if s.K > 12 else range(s.K)
    named = M is not None and M.arms is not None
    losses = clip([f"{label(i)} ({s.losses[i]})" if named or s.K > 12 else str(s.losses[i])
                   for i in order], full=full, width=_WIDTH)
    if s.K <= 12 and not named:
        losses = f"[{losses}]"
    elif s.K > 12:
        losses = "(fewest first) " + losses
    cw = "none" if s.condorcet_winner is None else \
        _arms(M, [s.condorcet_winner]) if named else str(s.condorcet_winner)
    winners, top = _arms(M, s.copeland_winners, full), _arms(M, s.top_cycle, full)
    path = clip([label(i) for i in s.hamiltonian_path], " > ", full, width=_WIDTH)
    broken = clip([M.pair_label(i, j) if M is not None else f"({i},{j})"
                   for i, j in s.broken_ties], full=full, width=_WIDTH)
    lines = [
        f"matrix            {s.name or '-'}  (K = {s.K})",
        f"losses L          {losses}",
        f"Copeland winners  {winners}  (C = {s.C}, L1 = {s.L1}, L2 = {s.L2})",
        f"Condorcet winner  {cw}",
        f"top cycle         {top}",
        f"3-cycles          {s.three_cycles}  "
        f"({'transitive' if s.transitive else 'not transitive'})",
        f"Hamiltonian path  {path}",
        f"Delta_min         {s.delta_min:.6g}"
        + ("  (= epsilon of a broken tie: an artefact, not a gap of the data)"
           if s.broken_ties and abs(s.delta_min - s.tie_epsilon) <= 1e-12 else ""),
        f"Assumption A      {s.assumption_A}",
    ]
    if s.broken_ties:
        lines.append(f"broken ties       {broken} (epsilon = {s.tie_epsilon:g})")
    return "\n".join(lines)


def structure_json(s: st.Structure, M: PreferenceMatrix) -> dict[str, Any]:
    """:meth:`Structure.to_dict` plus the arm names: every index field has a ``*_names`` twin.

    ``arms`` is the list of names (null for unnamed arms); the ``*_names`` fields always exist
    and hold the labels (the index as a string for unnamed arms).
    """
    d = s.to_dict()
    lab = M.label
    d["arms"] = list(M.arms) if M.arms is not None else None
    d["losses_by_arm"] = {lab(i): v for i, v in enumerate(s.losses)}
    d["copeland_winners_names"] = [lab(i) for i in s.copeland_winners]
    d["condorcet_winner_name"] = None if s.condorcet_winner is None else lab(s.condorcet_winner)
    d["top_cycle_names"] = [lab(i) for i in s.top_cycle]
    d["hamiltonian_path_names"] = [lab(i) for i in s.hamiltonian_path]
    d["broken_ties_names"] = [[lab(i), lab(j)] for i, j in s.broken_ties]
    return d


def _posterior_answer(args: argparse.Namespace, C: Any) -> int:
    """Counts whose µ̂ has no tournament (tied or never-compared pairs): the posterior
    distribution of the tournament instead of an error (docs/uncertainty.md)."""
    import sys

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
    M = load_matrix(args)
    s = st.structure(M)
    if not json_only(args):
        print(format_structure(s, M, full=args.full), flush=True)
    emit_json(args, structure_json(s, M))
    if args.plot:  # after the results: a late write failure does not lose them
        from ..theory.draw import draw_tournament

        draw_tournament(M, args.plot)
    return 0
