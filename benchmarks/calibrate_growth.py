"""Calibration of the growth rules of ``duelbound verify`` on correct algorithms (issue 32).

For every correct algorithm (the bundled compiled ones and the pure-Python D-TS and CCB
of examples/my_algorithms.py) on the default suite and matrices drawn as the judge draws
them, the exact regret of each run at H/8, H/4, H/2 and H (from the full duel record),
and the two statistics of :mod:`duelbound.checks.verify.verdicts`: the doubling ratios
g_b = R(H/2^b) / R(H/2^(b+1)) (log T: 1 + log 2 / log(t/2), √T: 1.414) and the
per-matrix lower end of their 99% interval over the runs (what the rule thresholds).

    python benchmarks/calibrate_growth.py --T 20000 --runs 10 --draws 3
    python benchmarks/calibrate_growth.py --T 80000 --runs 10 --draws 3 --only d-ts,ccb
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

from duelbound.checks.simulate.simulator import run_single
from duelbound.checks.verify.statistics import mean_ci
from duelbound.checks.verify.suite import generated_matrices, suite
from duelbound.theory.regret import regret_matrix

BUNDLED = ("d-ts", "ecw-rmed", "ccb", "scb", "savage")
PYTHON = ("examples.my_algorithms:dts", "examples.my_algorithms:ccb")


def _python_pairs(spec: str, M, T: int, seed: int) -> np.ndarray:
    """A pure-Python select/update algorithm run in this process (trusted code)."""
    import importlib
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # examples/ of the repo
    mod, attr = spec.split(":")
    alg = getattr(importlib.import_module(mod), attr)(M.K, T, seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 77]))
    P = np.asarray(M.values)
    out = np.empty((T, 2), dtype=np.int64)
    for t in range(T):
        i, j = alg.select()
        alg.update(i, j, bool(rng.random() < P[i, j]))
        out[t] = i, j
    return out


def ratios(M, pairs: np.ndarray) -> tuple[float, float, float]:
    """(R(H)/R(H/2), R(H/2)/R(H/4), R(H/4)/R(H/8)) from the exact duel record."""
    per = regret_matrix(M, "komiyama")[pairs[:, 0], pairs[:, 1]]
    cum = np.concatenate([[0.0], np.cumsum(per)])
    H = pairs.shape[0]
    R = [cum[H >> b] for b in range(4)]
    return tuple(float(R[b] / R[b + 1]) if R[b + 1] > 0 else float("nan") for b in range(3))


def _consistency(M, pairs: list, T: int, runs: int) -> dict:
    """The judge's consistency check on these runs (records built as the judge does)."""
    from duelbound.checks.verify.record import JudgedRun, duel_summary
    from duelbound.checks.verify.verdicts import consistency_check

    recs = [JudgedRun(seed=k, T=T, **duel_summary(M, p.astype(np.int32), T))
            for k, p in enumerate(pairs)]
    c = consistency_check(recs, M, T, runs, n_matrices=4)
    return {"verdict": c.verdict, "rule": c.rule,
            "inconsistent": len(c.statistic.get("inconsistent_runs", []))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--draws", type=int, default=3, help="generated matrices (master seeds)")
    ap.add_argument("--only", default="")
    ap.add_argument("--python-runs", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--checks", action="store_true",
                    help="also run the judge's consistency check on each matrix's runs")
    args = ap.parse_args()
    mats = suite(None, 0, 0) + generated_matrices(1, args.draws)
    algs = [a for a in BUNDLED + PYTHON
            if not args.only or any(s in a for s in args.only.split(","))]
    rows = []
    for alg in algs:
        for mi, M in enumerate(mats):
            t0 = time.perf_counter()
            n = args.python_runs if ":" in alg else args.runs
            g, records = [], []
            for r in range(n):
                seed = 1000 * mi + r
                if ":" in alg:
                    pairs = _python_pairs(alg, M, args.T, seed)
                else:
                    pairs = run_single(M, alg, args.T, seed, log_pairs=True).pairs
                g.append(ratios(M, np.asarray(pairs, dtype=np.int64)))
                records.append(np.asarray(pairs, dtype=np.int64))
            g = np.asarray(g)
            verdict = _consistency(M, records, args.T, n) if args.checks else None
            row = {"algorithm": alg, "matrix": f"{M.name}#{mi}", "T": args.T, "runs": n,
                   "g0": g[:, 0].tolist(), "g1": g[:, 1].tolist(), "g2": g[:, 2].tolist(),
                   "g0_ci": mean_ci(g[:, 0]), "g1_ci": mean_ci(g[:, 1]), "check": verdict}
            rows.append(row)
            print(f"{alg.split(':')[-1]:>10} {row['matrix']:>16} g0 {row['g0_ci'][0]:.3f} "
                  f"[{row['g0_ci'][1]:.3f}, {row['g0_ci'][2]:.3f}] max {np.nanmax(g[:, 0]):.3f}"
                  f"  g1 {row['g1_ci'][0]:.3f} [{row['g1_ci'][1]:.3f}, {row['g1_ci'][2]:.3f}]"
                  f" max {np.nanmax(g[:, 1]):.3f}  ({time.perf_counter() - t0:.0f} s)"
                  + (f"  consistency {verdict['verdict']} ({verdict['rule']}), "
                     f"{verdict['inconsistent']} runs inconsistent" if verdict else ""),
                  flush=True)
    g0 = np.concatenate([r["g0"] for r in rows])
    lo = np.array([min(r["g0_ci"][1], r["g1_ci"][1]) for r in rows])
    if args.checks:
        print("consistency rules:", dict(Counter(r["check"]["rule"] for r in rows)),
              f"inconsistent runs {sum(r['check']['inconsistent'] for r in rows)}"
              f"/{sum(r['runs'] for r in rows)}")
    print(f"per run g0: median {np.nanmedian(g0):.3f}, 99th pct {np.nanquantile(g0, .99):.3f},"
          f" max {np.nanmax(g0):.3f} ({g0.size} runs); largest per-matrix "
          f"min(lower g0, lower g1): {np.nanmax(lo):.3f} ({len(rows)} matrix x algorithm)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
