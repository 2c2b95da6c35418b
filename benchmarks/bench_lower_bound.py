"""Benchmark of C* (``duelbound bounds``) against a direct HiGHS solve of the compact LP.

Random tournaments with entries 0.5 ± U[0.005, 0.45] (``generators.random_matrix`` with
``gap_range=(0.005, 0.45)``), one or several Copeland winners.  Side by side in one run,
on the same matrix:

* **ours end to end**: ``duelbound bounds FILE --json --no-certify`` in process (reading
  the file, C* for every winner, C^E*, tight constraints, JSON), imports excluded;
* **direct compact**: the whole compact formulation of every winner built as arrays and
  solved by highspy alone (no PuLP, no generation) in a child process with a time limit
  (``--ref-timeout``; "> limit" if it does not finish);
* **command line, default**: ``duelbound bounds FILE --json`` as a subprocess (start-up
  included; certified, in exact arithmetic, when K ≤ 136 — the default);
* **command line, --certify**: the same with ``--certify`` above K = 136 (the verified
  floating-point certificate there), up to ``--cert-max``.

    python benchmarks/bench_lower_bound.py                       # the table of docs/lower_bound.md
    python benchmarks/bench_lower_bound.py --cases 16:1 64:1 --ref-timeout 60

Prints a Markdown table that can be pasted into a note.  The machine may be shared:
compare the ratio column, measured in one run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing as mp
import os
import tempfile
import time

import numpy as np

from duelbound.cli import main as cli_main
from duelbound.solvers.cstar import CERTIFY_MAX_K, lower_bound
from duelbound.solvers.formulations import compact_lp, pair_index
from duelbound.solvers.lp import solve_direct
from duelbound.theory import generators
from duelbound.theory import tournament as st
from duelbound.theory.regret import regret_matrix

DEFAULT_CASES = ["16:1", "64:1", "136:1", "200:1", "300:1", "300:2", "500:2", "500:1"]


def matrix(K: int, winners: int, seed: int):
    """The benchmark matrix: a uniformly random tournament on K arms with gaps U[0.005, 0.45]
    and one (``winners`` = 1) or at least two Copeland winners: the first seed ≥ ``seed``
    that has them.  (``random_matrix(..., n_winners=1)`` prescribes a spread-out loss
    sequence instead, L2 − L1 ≈ 35 at K = 136 and ~10⁴ constraint families: a much harder
    LP, 400 s at K = 136 on a loaded machine; not what a random tournament looks like.)"""
    for s in range(seed, seed + 1000):
        M = generators.random_matrix(K, s, gap_range=(0.005, 0.45), name=f"K{K}_s{s}")
        C = len(st.copeland_winners(M))
        if (C == 1) == (winners == 1):
            return M
    raise RuntimeError(f"no seed gives {winners} winner(s) at K = {K}")


def _direct_compact(values: np.ndarray, out) -> None:
    """Child process: build and solve the full compact LP of every winner with highspy."""
    from duelbound.theory import PreferenceMatrix

    M = PreferenceMatrix(values)
    t0 = time.perf_counter()
    mu = np.ascontiguousarray(M.values)
    d, r = st.divergences(M), regret_matrix(M)
    per = {}
    for i1 in st.copeland_winners(M):
        sol = solve_direct(compact_lp(mu, i1, pair_index(mu, d, r, i1)))
        per[i1] = sol.objective
    out.put((time.perf_counter() - t0, min(per.values())))


def direct_compact(M, timeout: float) -> tuple[float | None, float | None]:
    """(seconds, C*) of the direct compact solve, (None, None) past ``timeout``."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_direct_compact, args=(np.asarray(M.values), q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return None, None
    return q.get() if not q.empty() else (None, None)


def ours_end_to_end(M) -> tuple[float, float, str]:
    """(seconds, C*, method) of ``duelbound bounds FILE --json --no-certify`` in process."""
    import json

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.txt")
        np.savetxt(path, M.values, fmt="%.17g")
        buf = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(buf):
            rc = cli_main(["bounds", path, "--json", "--no-certify", "--max-k", "0"])
        t = time.perf_counter() - t0
    assert rc == 0
    lb = json.loads(buf.getvalue())["lower_bound"]
    return t, lb["value"], lb["stats"]["method"]


def command_line(M, *extra: str) -> tuple[float, str]:
    """(wall seconds, certificate status) of ``duelbound bounds FILE --json [extra]`` run
    as a subprocess: what a user waits for, start-up included."""
    import json
    import subprocess
    import sys

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.txt")
        np.savetxt(path, M.values, fmt="%.17g")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "duelbound", "bounds", path, "--json",
                              "--max-k", "0", *extra], capture_output=True, text=True,
                             check=True)
        t = time.perf_counter() - t0
    return t, json.loads(out.stdout)["lower_bound"]["certificate"]["status"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=DEFAULT_CASES,
                    help="K:winners pairs (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ref-timeout", type=float, default=300.0,
                    help="seconds allowed to the direct compact solve")
    ap.add_argument("--cert-max", type=int, default=300,
                    help="largest K for the --certify column (default %(default)s)")
    args = ap.parse_args()

    print(f"`uptime`: {os.popen('uptime').read().strip()}\n")
    lower_bound(generators.random_matrix(6, 0), certify=True)  # JIT warm-up, not timed
    with contextlib.redirect_stdout(io.StringIO()):
        cli_main(["bounds", "--example", "cyclic", "--json"])  # parser and import warm-up
    print("| K | winners | C* | ours end to end s (method) | ours C* only s |"
          " direct compact HiGHS s | ratio end to end / direct |"
          " `duelbound bounds F --json` s (certificate) | with --certify s (certificate) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in args.cases:
        K, C = (int(v) for v in case.split(":"))
        M = matrix(K, C, args.seed)
        t_ours, value, meth = ours_end_to_end(M)
        t0 = time.perf_counter()
        lower_bound(M, certify=False, max_k=None)
        t_cstar = time.perf_counter() - t0
        t_ref, ref = direct_compact(M, args.ref_timeout)
        if ref is not None:
            assert abs(ref - value) <= 1e-6 * max(1.0, abs(value)), (ref, value)
        ref_s = f"{t_ref:.3g}" if t_ref is not None else f"> {args.ref_timeout:.0f}"
        ratio = (f"{t_ours / t_ref:.2f}" if t_ref is not None
                 else f"< {t_ours / args.ref_timeout:.2f}")
        t_cli, status = command_line(M)
        cert = "-"
        if CERTIFY_MAX_K < K <= args.cert_max:
            t_c, cstatus = command_line(M, "--certify")
            cert = f"{t_c:.3g} ({cstatus})"
        print(f"| {K} | {len(st.copeland_winners(M))} | {value:.8g} | {t_ours:.3g} ({meth}) | "
              f"{t_cstar:.3g} | {ref_s} | {ratio} | {t_cli:.3g} ({status}) | {cert} |",
              flush=True)


if __name__ == "__main__":
    main()
