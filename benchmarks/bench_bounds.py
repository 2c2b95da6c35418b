"""Time every upper-bound term and a whole bound table on random matrices.

Prints a Markdown table (milliseconds, median of ``--repeat`` runs, measured side
by side in one process).  C* (the LP of issue 4) dominates ``bound_table``; it is
timed separately as ``lower_bound`` so the cost of the bound terms themselves is
visible.

    python benchmarks/bench_bounds.py --K 16 64 136 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from duelbound.solvers import bound_terms as ub
from duelbound.solvers import shared_solves
from duelbound.solvers.comparison import bound_table
from duelbound.solvers.cstar import lower_bound
from duelbound.solvers.tables import Column, Table, render
from duelbound.theory import generators


def timed(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return 1e3 * statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--K", type=int, nargs="+", default=[16, 64, 136])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ub.upper_bound(generators.random_matrix(4, 0), "ecw-rmed")  # JIT warm-up, not timed
    names = [n for n in ub.bound_names() if n != "cw-rmed"]
    cols = [Column("what", "what", align="l")] + [Column(f"K{K}", f"K = {K}", unit="ms",
                                                         fmt=".3g") for K in args.K]
    rows = {n: {"what": n} for n in [*names, "lower_bound", "bound_table (md)"]}
    for K in args.K:
        M = generators.random_matrix(K, args.seed, name=f"K{K}")
        def one(n, M=M):
            ub._facts.cache_clear()  # time the structure facts too (no caching)
            shared_solves.clear()
            ub.upper_bound(M, n)

        for n in names:
            rows[n][f"K{K}"] = timed(lambda n=n: one(n), args.repeat)
        rows["lower_bound"][f"K{K}"] = timed(lambda M=M: lower_bound(M), 1)

        def table(M=M):
            ub._facts.cache_clear()
            shared_solves.clear()
            bound_table([M]).render("md")

        rows["bound_table (md)"][f"K{K}"] = timed(table, 1)
    print(render(Table("upper-bound terms: median wall time", cols, list(rows.values())),
                 "md"))


if __name__ == "__main__":
    main()
