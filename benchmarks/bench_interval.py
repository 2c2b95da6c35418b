"""Timing and frequentist coverage of lower_bound_interval (docs/uncertainty.md).

Timing: K = 16 (``random_matrix(16, 0)``), 10^4 comparisons spread evenly over the
pairs, posterior intervals with several draw counts; the first call of a process also
pays numba's cache loading, so it is timed separately.

Coverage: for matrices whose C* is known, draw counts W_ab ~ Binomial(n, µ_ab) per pair,
compute the interval, and count how often it contains the true C* (and C^E*); also the
share of replications with an unbounded upper end and the mean P(winner set right).

    python benchmarks/bench_interval.py --timing
    python benchmarks/bench_interval.py --coverage --reps 200 --draws 400
    python benchmarks/bench_interval.py --coverage --method bootstrap --reps 200
    python benchmarks/bench_interval.py --large 100 300
    python benchmarks/bench_interval.py --dask 30:1000 100:1000

Large: an LMSYS-style log of K arms (``bench_logs.write_log``; 2 000 battles per arm),
the single-core seconds of C* per distinct tournament among the first ten posterior draws
(the numbers behind ``DRAW_SECONDS`` and ``--cstar-draws auto``), then the default CLI run
(``duelbound bounds --comparisons LOG --interval 0.95``: C* on the ``auto`` draws in one
process per CPU) with its wall time and the peak resident memory of its process tree
(sampled every 0.5 s from /proc; Linux).

Dask: C* on the first N of 1 000 posterior draws of a seeded league of K arms with draws
and ~86 % of the pairs never compared (:func:`league_counts`, the users' shape), serially
and on a local Dask cluster of 2 workers side by side, the per-draw time, the cluster's
overhead and the expected time of all 1 000 draws on more workers (:func:`dask_draws`;
``--no-serial`` skips the serial run).
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from duelbound.solvers import ecw_bound, lower_bound, lower_bound_interval
from duelbound.theory import datasets
from duelbound.theory.counts import sample_counts
from duelbound.theory.generators import random_matrix


def timing(draw_counts: list[int]) -> None:
    K, total = 16, 10_000
    M = random_matrix(K, 0)
    P = K * (K - 1) // 2
    n = np.full(P, total // P)
    n[: total - n.sum()] += 1
    W = sample_counts(M.values, n, np.random.default_rng(1))
    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print(f"K = {K}, {int(n.sum())} comparisons ({n.min()}-{n.max()} per pair), "
          f"true C* = {lower_bound(M).value:.6g}\n")
    t = time.perf_counter()
    lower_bound_interval(W, draws=10, seed=0)
    print(f"first call (numba cache loading, 10 draws): {time.perf_counter() - t:.2f} s\n")
    print("| draws | s | LP solves | LP models | re-used bases | tournaments | C* plug-in "
          "| C* interval | C^E* interval | P(winners) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in draw_counts:
        t = time.perf_counter()
        rep = lower_bound_interval(W, draws=d, seed=0)
        s = time.perf_counter() - t
        st = rep.stats
        up = "unbounded" if rep.cstar.upper is None else f"{rep.cstar.upper:.4g}"
        upe = "unbounded" if rep.ecw.upper is None else f"{rep.ecw.upper:.4g}"
        print(f"| {d} | {s:.2f} | {st['lp_solves']} | {st['models']} | {st['reused']} | "
              f"{rep.tournaments} | {rep.cstar.plug_in:.4g} | [{rep.cstar.lower:.4g}, {up}] | "
              f"[{rep.ecw.lower:.4g}, {upe}] | {rep.p_winners:.3f} |")


def cases() -> list[tuple[str, np.ndarray, int]]:
    """(name, µ, comparisons per pair)."""
    K8 = random_matrix(8, 1, gap_range=(0.1, 0.4)).values
    out = []
    for name, ns in (("cyclic", (100, 1000)), ("mslr5", (1000, 10_000)),
                     ("unique_copeland", (100, 1000))):
        out += [(name, datasets.load(name).values, n) for n in ns]
    out += [("random K=8", K8, n) for n in (200, 1000)]
    return out


def coverage(reps: int, draws: int, level: float, method: str, only: str | None,
             per_pair: int | None = None) -> None:
    from duelbound.theory import PreferenceMatrix

    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print(f"method {method}, level {level}, {reps} replications, {draws} draws each; "
          f"binomial tolerance ±{3 * math.sqrt(level * (1 - level) / reps):.3f} (3 sd)\n")
    print("| matrix | K | n per pair | true C* | C* coverage | C^E* coverage | unbounded C* "
          "| median width C* | mean P(winners) | s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, mu, n in cases():
        if (only and only not in name) or (per_pair and n != per_pair):
            continue
        M = PreferenceMatrix(mu)
        truth, truth_e = lower_bound(M).value, ecw_bound(M).value
        rng = np.random.default_rng(12345)
        hit = hit_e = unb = 0
        widths, pw = [], []
        t = time.perf_counter()
        for r in range(reps):
            rep = lower_bound_interval(sample_counts(mu, n, rng), level=level, method=method,
                                       draws=draws, seed=r)
            up = math.inf if rep.cstar.upper is None else rep.cstar.upper
            hit += rep.cstar.lower <= truth <= up
            hit_e += rep.ecw.lower <= truth_e <= (rep.ecw.upper or math.inf)
            unb += rep.cstar.upper is None
            widths.append(up - rep.cstar.lower)
            if rep.p_winners is not None:
                pw.append(rep.p_winners)
        s = time.perf_counter() - t
        pwm = f"{np.mean(pw):.3f}" if pw else "-"
        print(f"| {name} | {mu.shape[0]} | {n} | {truth:.4g} | {hit / reps:.3f} | "
              f"{hit_e / reps:.3f} | {unb / reps:.3f} | {np.median(widths):.4g} | {pwm} | "
              f"{s:.0f} |", flush=True)


def _tree_rss_mb(root: int) -> float:
    """Resident memory of ``root`` and all its descendants (Linux /proc), in MB."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(fields["PPid"]), []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total / 1024


def large(Ks: list[int]) -> None:
    import subprocess
    import sys
    import tempfile

    from duelbound.solvers.draws import auto_cstar_draws
    from duelbound.theory.counts import read_comparisons

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_logs import write_log

    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print("| K | battles | C* s per tournament (first 10 draws) | C* draws (auto) | wall s (CLI) "
          "| peak memory of the process tree MB |")
    print("|---|---|---|---|---|---|")
    for K in Ks:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "log.csv")
            write_log(path, K, 2000 * K, seed=3)
            W = np.asarray(read_comparisons(path).wins, dtype=float)
            # C* on the first 10 of 1 000 draws in this process: seconds per LP model
            # (one per distinct tournament; multi-winner draws may take the threshold rule)
            st = lower_bound_interval(W, draws=1000, cstar_draws=10, workers=1).stats
            per = st["cstar_seconds"] / max(st["models"], 1)
            # the default CLI run, its process tree (the worker processes) sampled every 0.5 s
            t = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "duelbound", "bounds",
                                     "--comparisons", path, "--interval", "0.95"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            peak = 0.0
            while proc.poll() is None:
                peak = max(peak, _tree_rss_mb(proc.pid))
                time.sleep(0.5)
            wall = time.perf_counter() - t
            assert proc.returncode == 0, proc.returncode
        print(f"| {K} | {2000 * K} | {per:.2f} ({st['models']} tournaments) | "
              f"{auto_cstar_draws(K, 1000)} | {wall:.0f} | {peak:.0f} |", flush=True)


def league_counts(K: int, seed: int = 0, per_arm: int = 100, draw: float = 0.235) -> np.ndarray:
    """Win counts of a seeded league of the users' shape (the football log of issue 31:
    327 teams, 23.5 % draws, 87 % of the pairs never compared): ``per_arm`` × K matches,
    each between arms at most ``span = max(2, round(K / 15))`` apart on a ring (regional
    play, so ~86 % of the pairs are never compared), strengths s ~ N(0, 1), a share
    ``draw`` of draws (half a win to each side), otherwise a wins with probability
    1 / (1 + exp(s_b − s_a))."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, K)
    n = per_arm * K
    a = rng.integers(K, size=n)
    b = (a + rng.integers(1, max(2, round(K / 15)) + 1, size=n)) % K
    drawn = rng.random(n) < draw
    a_wins = ~drawn & (rng.random(n) < 1.0 / (1.0 + np.exp(strength[b] - strength[a])))
    W = np.zeros((K, K))
    np.add.at(W, (a[drawn], b[drawn]), 0.5)
    np.add.at(W, (b[drawn], a[drawn]), 0.5)
    np.add.at(W, (a[a_wins], b[a_wins]), 1.0)
    b_wins = ~drawn & ~a_wins
    np.add.at(W, (b[b_wins], a[b_wins]), 1.0)
    return W


def dask_draws(specs: list[str], workers: int = 2, serial: bool = True) -> None:
    """C* on the first N of 1 000 posterior draws (``K:N``) of a seeded league of K arms
    (:func:`league_counts`), side by side in one process: serially, then on a local Dask
    cluster of ``workers`` processes (its start-up included: it is part of what a user
    waits for).  t: seconds of C* per draw in the serial run (``stats["cstar_seconds"]`` /
    N); busy: the seconds the workers spent on C* (summed); the cluster's overhead
    O = wall − busy / workers (start-up, close, scheduling, idle workers); the expected
    wall of all 1 000 draws on W workers of otherwise idle cores is 1 000·t / W + O (an
    extrapolation, labelled so).  Without the serial run t is busy / N (an upper estimate:
    two workers on two cores slow each other)."""
    from duelbound.cluster import dask_client
    from duelbound.solvers import draws as draws_module

    draws_module.PARALLEL_MIN_SECONDS = 0.0  # always on the cluster when workers > 1
    t = time.perf_counter()
    with dask_client(workers=workers):
        pass
    startup = time.perf_counter() - t
    print(f"`uptime`: {os.popen('uptime').read().strip()}")
    print(f"local Dask cluster of {workers} workers: start-up and close {startup:.1f} s")
    print("| K | never compared | C* draws | LP solves / threshold answers | serial s "
          "| t s/draw | Dask s | ratio | busy s per draw | overhead O s "
          "| 1 000 draws on 2 / 8 / 32 workers, expected (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in specs:
        K, n = (int(x) for x in spec.split(":"))
        W = league_counts(K)
        iu = np.triu_indices(K, 1)
        never = float(np.mean(W[iu] + W.T[iu] == 0))
        lower_bound_interval(W, draws=1000, cstar_draws=10)  # numba's cache, imports
        times, reps = [], []
        for w in ((1, workers) if serial else (workers,)):
            t = time.perf_counter()
            reps.append(lower_bound_interval(W, draws=1000, cstar_draws=max(n, 10), workers=w))
            times.append(time.perf_counter() - t)
            print(f"  K = {K}, {w} worker(s): {times[-1]:.1f} s, `uptime`: "
                  f"{os.popen('uptime').read().strip()}", flush=True)
        if serial:
            assert np.array_equal(reps[0].samples["cstar"], reps[1].samples["cstar"])
        st = reps[-1].stats
        per = reps[0].stats["cstar_seconds"] / n
        over = times[-1] - st["cstar_seconds"] / workers
        est = " / ".join(f"{1000 * per / w + over:.0f}" for w in (2, 8, 32))
        ser = f"{times[0]:.1f}" if serial else "-"
        ratio = f"{times[0] / times[-1]:.2f}" if serial else "-"
        print(f"| {K} | {never:.0%} | {n} | {st['lp_solves']} / {st['thresholds']} | {ser} "
              f"| {per:.3g} | {times[-1]:.1f} | {ratio} | {st['cstar_seconds'] / n:.3g} "
              f"| {over:.0f} | {est} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--method", default="posterior")
    ap.add_argument("--only", default=None, help="coverage: only matrices whose name has this")
    ap.add_argument("--n", type=int, default=None, help="coverage: only this n per pair")
    ap.add_argument("--timing-draws", default="200,400,1000")
    ap.add_argument("--large", type=int, nargs="+", metavar="K", default=None)
    ap.add_argument("--dask", nargs="+", metavar="K:N", default=None,
                    help="C* on N of 1 000 draws at K, serial and on 2 local Dask workers")
    ap.add_argument("--no-serial", action="store_true", help="--dask: the cluster run only")
    args = ap.parse_args()
    if args.dask:
        dask_draws(args.dask, serial=not args.no_serial)
        return
    if args.large:
        large(args.large)
    if not (args.timing or args.coverage or args.large):
        args.timing = True
    if args.timing:
        timing([int(x) for x in args.timing_draws.split(",")])
    if args.coverage:
        coverage(args.reps, args.draws, args.level, args.method, args.only, args.n)


if __name__ == "__main__":
    main()
