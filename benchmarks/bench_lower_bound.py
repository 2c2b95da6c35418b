"""Benchmark of C* (lower_bound), C^E* (ecw_bound) and the exact certificate.

Random tournaments with gaps in [0.05, 0.45] (``generators.random_matrix``), every
Copeland winner, model building included.  Side by side in one run: our
end-to-end time (``method="auto"``: family generation, arrays into HiGHS) against
highspy alone (no PuLP, no generation) on (a) the full compact LP and (b) the final
LP of family generation solved from scratch, with the ratios; the full compact
formulation and row generation through our path; the families and rows used against
the explicit constraint count; C^E*; the exact certificate per K.

    python benchmarks/bench_lower_bound.py                 # K = 16, 64, 136; cert 32, 64
    python benchmarks/bench_lower_bound.py --sizes 16 32 --rowgen-max 32 --cert 16 32

Prints a Markdown table that can be pasted into a note.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from duelbound.solvers.certificate import certify_winner
from duelbound.solvers.ecw import ecw_bound
from duelbound.solvers.formulations import compact_lp, explicit_count, pair_index
from duelbound.solvers.lower_bound import lower_bound, solve_winner
from duelbound.solvers.lp import solve_direct
from duelbound.theory import generators
from duelbound.theory import structure as st
from duelbound.theory.regret import regret_matrix


def _direct(M, families: dict | None = None) -> tuple[float, int]:
    """Build compact LP arrays and solve them with highspy alone (no PuLP), every winner.

    ``families`` (winner -> set of (i2, l, case)): only those rows, i.e. the final LP
    of family generation solved from scratch; None: the full compact formulation.
    Returns (seconds, simplex iterations).
    """
    t0 = time.perf_counter()
    iters = 0
    mu = np.ascontiguousarray(M.values)
    d, r = st.divergences(M), regret_matrix(M)
    for i1 in st.copeland_winners(M):
        fam = None if families is None else families[i1]
        sol = solve_direct(compact_lp(mu, i1, pair_index(mu, d, r, i1), families=fam))
        iters += sol.iterations
    return time.perf_counter() - t0, iters


def _mag(n: int) -> str:
    return f"{n}" if n < 10**6 else f"~10^{math.log10(n):.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 136])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rowgen-max", type=int, default=32, help="largest K for rowgen")
    ap.add_argument("--compact-max", type=int, default=136,
                    help="largest K for the full compact formulation through our path")
    ap.add_argument("--cert", type=int, nargs="*", default=[32, 64], help="K for certificates")
    args = ap.parse_args()

    print(f"`uptime`: {os.popen('uptime').read().strip()}\n")
    lower_bound(generators.random_matrix(6, 0), certify=False)  # JIT warm-up, not timed
    ecw_bound(generators.random_matrix(6, 0))
    print("| K | C | C* | auto (families) s | direct highspy, full compact s [iters] | ratio |"
          " direct highspy, final family LP s [iters] | ratio | compact s | rowgen s |"
          " families used | rows / cols / nnz of final LP | explicit constraints | C^E* |"
          " C^E* ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for K in args.sizes:
        M = generators.random_matrix(K, args.seed)
        winners = st.copeland_winners(M)
        t0 = time.perf_counter()
        res = lower_bound(M, certify=False)  # method="auto"
        t_auto = time.perf_counter() - t0
        t_full, it_full = _direct(M)
        used = {i1: _family_keys(M, i1) for i1 in winners}
        t_fam, it_fam = _direct(M, used)
        t_compact = "-"
        if K <= args.compact_max:
            t0 = time.perf_counter()
            cp = lower_bound(M, method="compact", certify=False)
            t_compact = f"{time.perf_counter() - t0:.3g}"
            assert abs(cp.value - res.value) <= 1e-7 * res.value
        rg_t = "-"
        if K <= args.rowgen_max:
            t0 = time.perf_counter()
            rg = lower_bound(M, method="rowgen", certify=False)
            rg_t = f"{time.perf_counter() - t0:.3g} ({rg.stats['rows_generated']} rows)"
            assert abs(rg.value - res.value) <= 1e-7 * res.value
        mu = np.ascontiguousarray(M.values)
        n_explicit = sum(explicit_count(mu, i1) for i1 in winners)
        pw = res.stats["per_winner"].values()
        fams = ", ".join(p["families"] for p in pw)
        size = ", ".join(f"{p['rows']}/{p['columns']}/{p['nonzeros']}" for p in pw)
        t0 = time.perf_counter()
        e = ecw_bound(M)
        t_ecw = (time.perf_counter() - t0) * 1e3
        print(f"| {K} | {len(winners)} | {res.value:.6g} | {t_auto:.3g} | "
              f"{t_full:.3g} [{it_full}] | {t_auto / t_full:.2f} | "
              f"{t_fam:.3g} [{it_fam}] | {t_auto / t_fam:.2f} | "
              f"{t_compact} | {rg_t} | {fams} | {size} | {_mag(n_explicit)} | {e.value:.6g} | "
              f"{t_ecw:.3g} |")
    if args.cert:
        print()
        print("| K | winners | certificate status | route | solve s | certificate s | "
              "digits of C* |")
        print("|---|---|---|---|---|---|---|")
    for K in args.cert:
        M = generators.random_matrix(K, args.seed)
        t_solve = t_cert = 0.0
        status, routes, digits = [], [], []
        for i1 in st.copeland_winners(M):
            t0 = time.perf_counter()
            ws = solve_winner(M, i1)
            t_solve += time.perf_counter() - t0
            t0 = time.perf_counter()
            c = certify_winner(M, ws)
            t_cert += time.perf_counter() - t0
            status.append(c["status"])
            routes.append(c["route"])
            if "value" in c:
                v = c["value"]
                digits.append(str(int((v.numerator.bit_length() + v.denominator.bit_length())
                                      * 0.30103)))
        print(f"| {K} | {len(status)} | {', '.join(status)} | {', '.join(routes)} | "
              f"{t_solve:.3g} | {t_cert:.3g} | {', '.join(digits)} |")


def _family_keys(M, i1) -> set:
    """The (i2, l, case) families in winner i1's final family-generation LP."""
    return {k for k in solve_winner(M, i1, "families").data.row_keys if k is not None}


if __name__ == "__main__":
    main()
