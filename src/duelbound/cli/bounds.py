"""Regret lower bound C* ([K16] Theorem 2) and ECW-RMED's C^E* ([K16] §4.2).

Prints C*_{i1} and C^E*_{i1} for every Copeland winner (komiyama regret
convention, coefficients of log T), the optimal exploration allocation as a
table of pairs with N_ij / log T, the tight constraints and the certificate status.

examples:
  duelbound bounds --example cyclic
  duelbound bounds matrix.txt --json
  duelbound bounds matrix.txt --method rowgen --no-certify
  duelbound bounds --example cyclic --symbolic
"""

from __future__ import annotations

import argparse

from duelbound.solvers.ecw import ecw_bound
from duelbound.solvers.lower_bound import CERTIFY_MAX_K, METHODS, lower_bound

from .common import add_matrix_arguments, load_matrix, write_json

NAME = "bounds"
ORDER = 20
HELP = "regret lower bound C* (exact LP, certified) and ECW-RMED's C^E*"

_MAX_PAIRS_SHOWN = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--method", choices=METHODS, default="auto",
                        help="LP formulation for C* (default: auto = compact)")
    cert = parser.add_mutually_exclusive_group()
    cert.add_argument("--certify", dest="certify", action="store_true", default=None,
                      help=f"exact rational certificate (default: on for K <= {CERTIFY_MAX_K})")
    cert.add_argument("--no-certify", dest="certify", action="store_false")
    parser.add_argument("--symbolic", action="store_true",
                        help="also print C* as a closed form in d(p, 1/2) (needs a certificate)")


def _cert_line(cert: dict) -> str:
    s = cert["status"]
    if s == "exact":
        return "certified exact for the rational inputs (primal, dual and objectives checked)"
    if s == "interval":
        return (f"certified within [{cert['lower_float']:.12g}, {cert['upper_float']:.12g}]"
                " (no exact basis certificate)")
    if s == "uncertified":
        return f"uncertified ({cert.get('reason') or 'certify=False'})"
    return f"FAILED: {cert.get('message', '')}"


def format_bounds(M, lb, ecw) -> str:
    lines = [f"matrix      {M.name or '-'}  (K = {M.K}); regret convention komiyama; "
             "values are coefficients of log T"]
    if M.perturbed:
        lines.append(f"NOTE        ties broken by epsilon = {M.tie_epsilon:g}: "
                     "bounds hold for the perturbed matrix")
    lines.append("")
    lines.append(f"{'winner':>8} {'C*_i1':>14} {'C^E*_i1':>14}")
    for i1 in sorted(lb.per_winner):
        lines.append(f"{i1:>8} {lb.per_winner[i1]:>14.8g} {ecw.per_winner[i1]:>14.8g}")
    lines.append("")
    lines.append(f"C*   = {lb.value:.12g}   (minimising winner {lb.winners}; [K16] Theorem 2)")
    lines.append(f"C^E* = {ecw.value:.12g}   (minimising winner {ecw.winners}; [K16] Theorem 4-5)")
    lines.append(f"certificate: {_cert_line(lb.certificate)}")
    if lb.symbolic is not None:
        lines.append(f"closed form: C* = {lb.symbolic}")
    st = lb.stats
    lines.append(f"solver: {st['method']} via {st['backend']}, {st['lp_solves']} LP solve(s), "
                 f"{st['wall_time']:.3g} s")
    q = lb.allocation
    pairs = [(i, j, q[i, j]) for i in range(M.K) for j in range(i + 1, M.K) if q[i, j] > 1e-12]
    lines.append("")
    lines.append(f"optimal allocation of winner {lb.winners[0]} (N_ij / log T = q*_ij, "
                 "x = q*·d):")
    lines.append(f"{'pair':>10} {'N_ij/log T':>14} {'x_ij':>10}")
    for i, j, v in pairs[:_MAX_PAIRS_SHOWN]:
        lines.append(f"{f'({i},{j})':>10} {v:>14.8g} {lb.evidence[i, j]:>10.6g}")
    if len(pairs) > _MAX_PAIRS_SHOWN:
        lines.append(f"  ... {len(pairs) - _MAX_PAIRS_SHOWN} more pairs (see --json)")
    tight = lb.tight[lb.winners[0]]
    lines.append(f"tight constraints: {len(tight)} (i1, i2, l, I, S), e.g.")
    for c in tight[:5]:
        lines.append(f"  i1={c.i1} i2={c.i2} l={c.l} I={list(c.I)} S={list(c.S)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    M = load_matrix(args)
    certify = True if args.symbolic and args.certify is None else args.certify
    lb = lower_bound(M, method=args.method, certify=certify, symbolic=args.symbolic)
    ecw = ecw_bound(M)
    if args.json:
        write_json({"matrix": M.to_dict(), "lower_bound": lb.to_dict(), "ecw": ecw.to_dict()})
    else:
        print(format_bounds(M, lb, ecw))
    return 0
