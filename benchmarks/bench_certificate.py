"""Certified C* and its certificate: times side by side in one run (issues 24, 30, 31).

For a random tournament at each K, in one process:

* ``direct``: an uncertified HiGHS solve of the compact LP of every Copeland winner
  (``solve_winner(M, i1, "compact")``: the LP alone);
* ``certified``: ``lower_bound(M, certify=True)`` (LP, certificate, enclosure) and its ratio
  to ``direct``, in wall time and in CPU time of the process (steadier on a shared
  machine);
* ``write``: building and serialising the certificate document; its size;
* ``check``: duelbound's checker (``duelbound.checks.proof``, standard library only) and
  ``spec``: the independent checker written from docs/certificates.md
  (tests/spec_checker.py: exact fractions + mpmath intervals), on the same text;
* the relative width of the certified bracket;
* with ``--stages``: where the certified path's CPU time goes, from a second run of
  ``lower_bound(M, certify=True)`` with timers around its stages (:data:`STAGES`).

    python benchmarks/bench_certificate.py                       # K = 16, 64, 136, 200, 300
    python benchmarks/bench_certificate.py --K 16 64 --seeds 0 1 --out /tmp/certs
    python benchmarks/bench_certificate.py --K 136 --no-spec --stages
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
import time
from contextlib import contextmanager

from duelbound.checks.proof import check_certificate, loads
from duelbound.solvers import lower_bound
from duelbound.solvers.cstar import solve_winner
from duelbound.theory import tournament
from duelbound.theory.generators import random_matrix

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import spec_checker  # noqa: E402


def _timed(f, *a, **k):
    t0 = time.perf_counter()
    out = f(*a, **k)
    return out, time.perf_counter() - t0


def _cpu_timed(f, *a, **k):
    """(result, wall seconds, CPU seconds of this process): on a shared machine the CPU
    ratio is the steadier one."""
    c0 = time.process_time()
    out, wall = _timed(f, *a, **k)
    return out, wall, time.process_time() - c0


#: (module, function, label) timed by ``--stages``; the module is the one whose name the
#: caller looks up (a function imported into another module is patched there).  "of which"
#: stages run inside the stage above them.
STAGES = [
    ("duelbound.solvers.cstar", "solve_winner", "LP"),
    ("duelbound.solvers.compact_dual", "exact_basis", "exact basis"),
    ("duelbound.solvers.compact_dual", "split_compact_dual", "split"),
    ("duelbound.solvers.certificate", "verify", "verify"),
    ("duelbound.solvers.cstar", "enclose", "enclosure"),
    ("duelbound.solvers.enclosure", "_kl_ends", "of which d enclosures"),
]


@contextmanager
def _stage_timers():
    """CPU seconds per :data:`STAGES` label while the block runs (the functions wrapped,
    restored afterwards)."""
    spent: dict[str, float] = dict.fromkeys([label for *_, label in STAGES], 0.0)
    saved = []
    for mod_name, name, label in STAGES:
        mod = importlib.import_module(mod_name)
        f = getattr(mod, name)

        @functools.wraps(f)
        def timed(*a, _f=f, _label=label, **k):
            c0 = time.process_time()
            try:
                return _f(*a, **k)
            finally:
                spent[_label] += time.process_time() - c0

        saved.append((mod, name, f))
        setattr(mod, name, timed)
    try:
        yield spent
    finally:
        for mod, name, f in saved:
            setattr(mod, name, f)


def _print_stages(M) -> None:
    with _stage_timers() as spent:
        c0 = time.process_time()
        lower_bound(M, certify=True, max_k=None)
        total = time.process_time() - c0
    top = sum(v for label, v in spent.items() if not label.startswith("of which"))
    parts = ", ".join(f"{label} {v:.3f}" for label, v in spent.items())
    print(f"      stages, CPU s (a second run): {parts}, other {total - top:.3f}; "
          f"total {total:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--K", type=int, nargs="+", default=[16, 64, 136, 200, 300])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--no-spec", action="store_true", help="skip the independent checker")
    ap.add_argument("--direct-max-k", type=int, default=136,
                    help="time the direct compact LP only up to this K (the whole compact LP "
                         "takes minutes at K = 200 and more; default 136)")
    ap.add_argument("--out", help="keep the certificates in this folder")
    ap.add_argument("--stages", action="store_true",
                    help="also print the certified path's CPU time per stage (a second run)")
    args = ap.parse_args()
    warm = random_matrix(6, 0)  # JIT, imports and first-call caches: not timed
    lower_bound(warm, certify=True)
    [solve_winner(warm, int(i), "compact") for i in tournament.copeland_winners(warm)]
    print(f"{'K':>4} {'seed':>4} {'direct s':>8} {'certified s':>11} {'ratio':>5} {'CPU ratio':>9} "
          f"{'write s':>7} {'MiB':>6} {'check s':>7} {'spec s':>7} {'rel width':>9}")
    for K in args.K:
        for seed in args.seeds:
            M = random_matrix(K, seed)
            winners = [int(i) for i in tournament.copeland_winners(M)]
            direct = direct_cpu = float("nan")
            if K <= args.direct_max_k:
                _, direct, direct_cpu = _cpu_timed(
                    lambda m=M, w=winners: [solve_winner(m, i, "compact") for i in w])
            res, certified, certified_cpu = _cpu_timed(lower_bound, M, certify=True,
                                                       max_k=None)
            text, write = _timed(lambda r=res: json.dumps(r.certificate_document(),
                                                          separators=(",", ":")))
            out, check = _timed(lambda t=text: check_certificate(loads(t)))
            spec = float("nan")
            if not args.no_spec:
                verdict, spec = _timed(spec_checker.verdict, text)
                assert verdict == ("VALID", None), verdict
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                with open(os.path.join(args.out, f"cert_K{K}_s{seed}.json"), "w") as fh:
                    fh.write(text)
            width = (out["upper_float"] - out["lower_float"]) / out["lower_float"]
            print(f"{K:>4} {seed:>4} {direct:>8.2f} {certified:>11.2f} "
                  f"{certified / direct:>5.2f} {certified_cpu / direct_cpu:>9.2f} "
                  f"{write:>7.2f} {len(text) / 2**20:>6.2f} "
                  f"{check:>7.2f} {spec:>7.2f} {width:>9.2g}", flush=True)
            if args.stages:
                _print_stages(M)


if __name__ == "__main__":
    main()
