"""Reading large comparison logs: time and peak memory against the number of rows.

An LMSYS-style log (``model_a,model_b,winner``; Elo-like ratings 900–1300, Zipf-like
popularity, 15 % ties) of K arms is written with numpy, then read by
:func:`duelbound.theory.counts.read_comparisons` in a fresh process, which reports its
wall time and peak resident memory (``VmHWM`` of /proc/self/status, Linux).  Sizes side
by side in one run.

    python benchmarks/bench_logs.py --rows 1e5 1e6 1e7 --k 300
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a child started by this
# (large) process would report the parent's size at fork time
_CHILD = """
import sys, time
t = time.perf_counter()
from duelbound.theory.counts import read_comparisons
C = read_comparisons(sys.argv[1])
s = time.perf_counter() - t
hwm = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM"))
print(C.K, int(C.pair_counts.sum() // 2), s, hwm / 1024)
"""


def write_log(path: str, K: int, rows: int, seed: int = 0, chunk: int = 1_000_000) -> None:
    rng = np.random.default_rng(seed)
    elo = rng.uniform(900, 1300, K)
    pop = 1.0 / np.arange(1, K + 1) ** 1.1
    pop /= pop.sum()
    names = np.array([f"model-{i:03d}-2024-0{1 + i % 9}-1{i % 10}" for i in range(K)])
    outcomes = np.array(["model_a", "model_b", "tie", "tie (bothbad)"])
    with open(path, "w") as fh:
        fh.write("model_a,model_b,winner\n")
        left = rows
        while left:
            n = min(chunk, left)
            a = rng.choice(K, n, p=pop)
            b = (a + 1 + rng.choice(K - 1, n, p=None)) % K
            p = 1.0 / (1.0 + 10 ** ((elo[b] - elo[a]) / 400))
            u = rng.random(n)
            code = np.where(u < 0.15, 2 + (rng.random(n) < 0.3), (rng.random(n) >= p).astype(int))
            fh.write("\n".join(f"{x},{y},\"{o}\"" if " " in o else f"{x},{y},{o}"
                               for x, y, o in zip(names[a], names[b], outcomes[code])))
            fh.write("\n")
            left -= n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e5, 1e6, 1e7])
    ap.add_argument("--k", type=int, default=300)
    args = ap.parse_args()
    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print("| rows | K | file MB | write s | read s | rows/s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for r in args.rows:
            rows = int(r)
            path = os.path.join(tmp, f"log{rows}.csv")
            t = time.perf_counter()
            write_log(path, args.k, rows)
            tw = time.perf_counter() - t
            out = subprocess.run([sys.executable, "-c", _CHILD, path], check=True,
                                 capture_output=True, text=True).stdout.split()
            K, _, secs, rss = int(out[0]), out[1], float(out[2]), float(out[3])
            print(f"| {rows:.0e} | {K} | {os.path.getsize(path) / 1e6:.0f} | {tw:.0f} | "
                  f"{secs:.1f} | {rows / secs:,.0f} | {rss:.0f} |", flush=True)
            os.remove(path)


if __name__ == "__main__":
    main()
