"""Benchmark of C* (lower_bound), C^E* (ecw_bound) and the exact certificate.

Random tournaments with gaps in [0.05, 0.45] (``generators.random_matrix``), every
Copeland winner, model building included.  Side by side in one run: our
end-to-end time (PuLP + HiGHS) and a direct highspy solve of the same compact LP
(no PuLP), their ratio; row generation's rows against the explicit count.

    python benchmarks/bench_lower_bound.py                 # K = 16, 64, 136
    python benchmarks/bench_lower_bound.py --sizes 16 32 --rowgen-max 32 --cert 32 64

Prints a Markdown table that can be pasted into a note.
"""

from __future__ import annotations

import argparse
import math
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


def _direct(M) -> float:
    """Build the compact LP arrays and solve them with highspy alone, every winner."""
    t0 = time.perf_counter()
    mu = np.ascontiguousarray(M.values)
    d, r = st.divergences(M), regret_matrix(M)
    for i1 in st.copeland_winners(M):
        solve_direct(compact_lp(mu, i1, pair_index(mu, d, r, i1)))
    return time.perf_counter() - t0


def _mag(n: int) -> str:
    return f"{n}" if n < 10**6 else f"~10^{math.log10(n):.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 136])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rowgen-max", type=int, default=64, help="largest K for rowgen")
    ap.add_argument("--cert", type=int, nargs="*", default=[32], help="K for certificates")
    args = ap.parse_args()

    lower_bound(generators.random_matrix(6, 0), certify=False)  # JIT warm-up, not timed
    ecw_bound(generators.random_matrix(6, 0))
    print("| K | C | C* | compact s | direct highspy s | ratio | families s | rowgen s |"
          " rows generated | explicit constraints | C^E* | C^E* ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for K in args.sizes:
        M = generators.random_matrix(K, args.seed)
        winners = st.copeland_winners(M)
        t0 = time.perf_counter()
        res = lower_bound(M, method="compact", certify=False)
        t_compact = time.perf_counter() - t0
        t_direct = _direct(M)
        t0 = time.perf_counter()
        fam = lower_bound(M, method="families", certify=False)
        t_fam = time.perf_counter() - t0
        assert abs(fam.value - res.value) <= 1e-7 * res.value
        rg_t, rg_rows = "-", "-"
        if K <= args.rowgen_max:
            t0 = time.perf_counter()
            rg = lower_bound(M, method="rowgen", certify=False)
            rg_t = f"{time.perf_counter() - t0:.3g}"
            rg_rows = str(rg.stats["rows_generated"])
            assert abs(rg.value - res.value) <= 1e-7 * res.value
        mu = np.ascontiguousarray(M.values)
        n_explicit = sum(explicit_count(mu, i1) for i1 in winners)
        t0 = time.perf_counter()
        e = ecw_bound(M)
        t_ecw = (time.perf_counter() - t0) * 1e3
        print(f"| {K} | {len(winners)} | {res.value:.6g} | {t_compact:.3g} | {t_direct:.3g} | "
              f"{t_compact / t_direct:.2f} | {t_fam:.3g} | {rg_t} | {rg_rows} | "
              f"{_mag(n_explicit)} | {e.value:.6g} | {t_ecw:.3g} |")
    if args.cert:
        print()
        print("| K | winners | certificate status | solve s | certificate s |")
        print("|---|---|---|---|---|")
    for K in args.cert:
        M = generators.random_matrix(K, args.seed)
        t_solve = t_cert = 0.0
        status = []
        for i1 in st.copeland_winners(M):
            t0 = time.perf_counter()
            ws = solve_winner(M, i1)
            t_solve += time.perf_counter() - t0
            t0 = time.perf_counter()
            status.append(certify_winner(M, ws)["status"])
            t_cert += time.perf_counter() - t0
        print(f"| {K} | {len(status)} | {', '.join(status)} | {t_solve:.3g} | {t_cert:.3g} |")


if __name__ == "__main__":
    main()
