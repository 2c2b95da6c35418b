"""Throughput of ``duelbound verify``'s isolated judge (duels/s), and the protocol choice.

Measures, for a trivial algorithm (select returns (0, 1), update does nothing):

- ``bare``: the select/update loop in one process, no environment (the ceiling);
- ``judge select`` / ``judge duel``: :func:`duelbound.checks.verify.judge.judge_run` end to
  end — child process, two pipes, outcomes drawn in the judge, record kept — under each
  isolation this machine allows (process; namespaces through bubblewrap), interleaved;
- ``pipe``: the same exchange over two os.pipe()s with 8-byte struct messages and no
  judge logic (the reference point);
- ``--exec``: a trivial C program (requests "0 1") through the line protocol;
- start-up per run: from starting a run to its first duel (interpreter, sandbox, import).

    python benchmarks/bench_verify.py --T 200000 --repeat 3

prints a Markdown table (best of ``--repeat``; the machine's load average is printed
too: both sides of the exchange need a core, so a loaded machine halves the figures).
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

from duelbound.checks.verify import sandbox
from duelbound.checks.verify.harness import exec_spec
from duelbound.checks.verify.judge import Limits, judge_run
from duelbound.theory import datasets
from duelbound.theory.errors import DuelboundError

TRIVIAL = """
WORK = 100
class A:
    def __init__(self, K, T, seed):
        pass
    def select(self):
        return 0, 1
    def update(self, i, j, won):
        pass
def make(K, T, seed):
    return A(K, T, seed)
class Busy(A):
    # ~50 µs of Python per duel: a 20k-duels/s algorithm (WORK calibrated by --suite)
    def __init__(self, K, T, seed, work=WORK):
        self.work = work
    def select(self):
        s = 0
        for k in range(self.work):
            s += k
        return 0, 0
def busy(K, T, seed):
    return Busy(K, T, seed)
def run(K, T, seed):
    def go(duel, horizon):
        for _ in range(horizon):
            duel(0, 1)
    return go
"""

TRIVIAL_C = r"""
#include <stdio.h>
int main(void) {
    int K; long T; unsigned long long s; int won;
    if (scanf("duelbound 1 %d %ld %llu", &K, &T, &s) != 3) return 2;
    for (long t = 0; t < T; t++) {
        printf("0 1\n");
        fflush(stdout);
        if (scanf("%d", &won) != 1) return 1;
    }
    return 0;
}
"""

PIPE_CHILD = """
import os, struct, sys
r, w, T = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
pack = struct.Struct('<ii').pack
sel = lambda: (0, 1)
for _ in range(T):
    i, j = sel()
    os.write(w, pack(i, j))
    os.read(r, 1)
"""


def bare(T: int) -> float:
    ns: dict = {}
    exec(TRIVIAL, ns)  # noqa: S102 — our own constant
    a = ns["make"](4, T, 0)
    t0 = time.perf_counter()
    for _ in range(T):
        i, j = a.select()
        a.update(i, j, True)
    return T / (time.perf_counter() - t0)


def pipe(T: int) -> float:
    c_r, c_w = os.pipe()
    p_r, p_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", PIPE_CHILD, str(p_r), str(c_w), str(T)],
                            pass_fds=(p_r, c_w))
    os.close(p_r)
    os.close(c_w)
    rng = np.random.default_rng(0)
    u = rng.random(T).tolist()
    unpack = struct.Struct("<ii").unpack
    mu = [[0.5, 0.6], [0.4, 0.5]]
    log = bytearray()
    t0 = None
    for t in range(T):
        d = os.read(c_r, 8)
        if t0 is None:
            t0 = time.perf_counter()
        i, j = unpack(d)
        log += d
        os.write(p_w, b"\x01" if u[t] < mu[i][j] else b"\x00")
    proc.wait()
    return T / (time.perf_counter() - t0)


def _under(level: str, fn):
    """``fn(limits)`` with the judge's isolation set to ``level`` ("namespaces"/"process")."""
    limits = Limits(isolation="process" if level == "process" else "sandbox")
    return lambda: fn(limits)


def _startup(M, limits: Limits) -> float:
    """Seconds from starting a run to its first duel (interpreter, sandbox, import)."""
    rec = judge_run("bench_trivial:make", M, 10, 1, 2, limits=limits)
    return rec.startup_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--T", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--suite", action="store_true",
                    help="also time a default verification of a 20k-duels/s algorithm")
    args = ap.parse_args()
    M = datasets.load("cyclic")
    try:
        levels = ["process"] + (["namespaces"] if sandbox.isolation().namespaces else [])
    except DuelboundError:   # no sandbox here: process isolation only
        levels = ["process"]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "bench_trivial.py"), "w") as fh:
            fh.write(textwrap.dedent(TRIVIAL))
        sys.path.insert(0, tmp)
        cases = {"bare select/update loop (no environment)": lambda: bare(args.T),
                 "os.pipe + struct ping-pong (reference point)": lambda: pipe(args.T)}
        cc = shutil.which("cc")
        if cc:   # a trivial C program through the line protocol (--exec)
            with open(os.path.join(tmp, "trivial.c"), "w") as fh:
                fh.write(TRIVIAL_C)
            subprocess.run([cc, "-O2", "-o", os.path.join(tmp, "trivial"),
                            os.path.join(tmp, "trivial.c")], check=True)
            prog = exec_spec([os.path.join(tmp, "trivial")])
        for level in levels:   # the same judge under each isolation, interleaved below
            cases[f"judge, select protocol ({level})"] = _under(level, lambda lim: judge_run(
                "bench_trivial:make", M, args.T, 1, 2, limits=lim).duels_per_s)
            cases[f"judge, duel protocol ({level})"] = _under(level, lambda lim: judge_run(
                "bench_trivial:run", M, args.T, 1, 2, limits=lim).duels_per_s)
            if cc:
                cases[f"judge, --exec line protocol, C program ({level})"] = _under(
                    level, lambda lim: judge_run(prog, M, args.T, 1, 2,
                                                 limits=lim).duels_per_s)
        best = dict.fromkeys(cases, 0.0)
        starts: dict[str, list[float]] = {level: [] for level in levels}
        for _ in range(args.repeat):   # interleaved: a noisy machine hits every case alike
            for name, fn in cases.items():
                best[name] = max(best[name], fn())
            for level in levels:
                starts[level] += [_under(level, lambda lim: _startup(M, lim))() for _ in range(5)]
        print(f"T = {args.T}, best of {args.repeat}; load average "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
        print("| case | duels/s |\n|---|---|")
        for name, rate in best.items():
            print(f"| {name} | {rate:,.0f} |")
        print("\n| isolation | start-up per run, median (min) |\n|---|---|")
        for level, xs in starts.items():
            print(f"| {level} | {1e3 * float(np.median(xs)):.0f} ms "
                  f"({1e3 * min(xs):.0f} ms) |")
        if args.suite:
            suite(tmp)


def _bare_rate(a, n=20_000) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        i, j = a.select()
        a.update(i, j, True)
    return n / (time.perf_counter() - t0)


def suite(tmp: str) -> None:
    """Wall time of ``verify`` with the defaults for an algorithm doing 20k duels/s alone."""
    from duelbound.checks.verify import verify_algorithm

    ns: dict = {}
    exec(TRIVIAL, ns)  # noqa: S102 — our own constant
    work = 100
    for _ in range(8):  # calibrate the busy loop to 20k duels/s on this machine, now
        work = max(1, int(work * _bare_rate(ns["Busy"](4, 1, 0, work)) / 20_000))
    with open(os.path.join(tmp, "bench_busy.py"), "w") as fh:
        fh.write(textwrap.dedent(TRIVIAL.replace("WORK = 100", f"WORK = {work}")))
    rate = _bare_rate(ns["Busy"](4, 1, 0, work))
    t0 = time.perf_counter()
    r = verify_algorithm("bench_busy:busy", progress=False)
    print(f"default verify of a {rate:,.0f}-duels/s algorithm (T = {r.T}, {r.runs} runs, "
          f"{len(r.matrices)} matrices): {time.perf_counter() - t0:.0f} s, verdict {r.verdict}")


if __name__ == "__main__":
    main()
