"""Tournament structure of a preference matrix (SPEC §1).

Prints K, the loss vector L, Copeland winners, whether a Condorcet winner exists,
the top cycle, the number of 3-cycles, Δ_min and the status of Assumption A.

examples:
  duelbound structure --example cyclic
  duelbound structure matrix.txt --json
  duelbound structure matrix.txt --plot tournament.png
"""

from __future__ import annotations

import argparse

from duelbound.theory import structure as st

from .common import add_matrix_arguments, load_matrix, write_json

NAME = "structure"
ORDER = 10
HELP = "tournament structure: winners, L vector, top cycle, 3-cycles, gaps"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--plot", metavar="FILE", help="draw the tournament (.png/.svg/.pdf)")


def format_structure(s: st.Structure) -> str:
    cw = "none" if s.condorcet_winner is None else str(s.condorcet_winner)
    lines = [
        f"matrix            {s.name or '-'}  (K = {s.K})",
        f"losses L          {s.losses}",
        f"Copeland winners  {s.copeland_winners}  (C = {s.C}, L1 = {s.L1}, L2 = {s.L2})",
        f"Condorcet winner  {cw}",
        f"top cycle         {s.top_cycle}",
        f"3-cycles          {s.three_cycles}  "
        f"({'transitive' if s.transitive else 'not transitive'})",
        f"Hamiltonian path  {' > '.join(map(str, s.hamiltonian_path))}",
        f"Delta_min         {s.delta_min:.6g}",
        f"Assumption A      {s.assumption_A}",
    ]
    if s.broken_ties:
        lines.append(f"broken ties       {s.broken_ties} (epsilon = {s.tie_epsilon:g})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    M = load_matrix(args)
    s = st.structure(M)
    if args.plot:
        from duelbound.theory.draw import draw_tournament

        draw_tournament(M, args.plot)
    if args.json:
        write_json(s.to_dict())
    else:
        print(format_structure(s))
    return 0
