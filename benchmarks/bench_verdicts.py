"""Power of ``duelbound verify`` on real implementations (issue 23, docs/verification.md).

Runs the judge at its defaults (or the given T, runs) on correct implementations and on
realistic bugs (examples/broken_variants.py), with a fresh secret environment seed per
repetition, and tabulates per variant: verdicts, whether the reason is the expected one,
and the wall time.  Rates for the docs: catch rate (FAIL, or WARN where that is the
target) on the buggy ones, false alarms (WARN/FAIL) on the correct ones, INCONCLUSIVE rate.

    python benchmarks/bench_verdicts.py                       # every variant once
    python benchmarks/bench_verdicts.py --repeat 5 --only uniform_random,dts
    python benchmarks/bench_verdicts.py --json verdicts.json
    python benchmarks/bench_verdicts.py --isolation process    # no sandbox: trusted code
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from duelbound.checks.verify.harness import verify_algorithm

#: (factory, expected overall verdicts, correct implementation?)
VARIANTS = [
    ("examples.my_algorithms:dts", ("PASS",), True),
    ("examples.my_algorithms:ccb", ("PASS",), True),
    ("d-ts", ("PASS",), True),
    ("ecw-rmed", ("PASS",), True),
    ("examples.broken_variants:uniform_random", ("FAIL",), False),
    ("examples.broken_variants:etc_fixed", ("FAIL",), False),
    ("examples.broken_variants:always_00", ("FAIL",), False),
    ("examples.broken_variants:dts_skip_last", ("FAIL",), False),
    ("examples.broken_variants:borda_greedy", ("FAIL",), False),
    ("examples.broken_variants:dts_swapped", ("FAIL",), False),
    ("examples.broken_variants:eps_greedy_sqrt", ("WARN", "FAIL"), False),
    # Condorcet algorithms (bundled): linear without a Condorcet winner
    ("rmed1", ("FAIL",), False),
    ("rucb", ("FAIL",), False),
    # issue 32: blind variants of examples/blind_variants.py
    ("examples.blind_variants:etc_doubling_sqrt", ("WARN", "FAIL"), False),
    ("examples.blind_variants:dts_trials_posterior", ("FAIL",), False),
    ("examples.blind_variants:dts_sampled_borda", ("FAIL",), False),
    ("examples.blind_variants:dts_losses_posterior", ("PASS",), True),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated substrings of factory names")
    ap.add_argument("--T", type=int, default=None)
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--budget", type=float, default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--isolation", default="sandbox", choices=("sandbox", "process"),
                    help="process: no sandbox (trusted example code only)")
    args = ap.parse_args()
    kw = {k: v for k, v in (("T", args.T), ("runs", args.runs), ("budget", args.budget))
          if v is not None}
    kw["isolation"] = args.isolation
    only = [s for s in args.only.split(",") if s]
    records = []
    for spec, expected, correct in VARIANTS:
        if only and not any(s in spec for s in only):
            continue
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            rep_ = verify_algorithm(spec, **kw)
            dt = time.perf_counter() - t0
            checks = Counter(c.verdict for m in rep_.matrices for c in m.checks)
            rules = sorted({f"{m.name}:{c.rule}" for m in rep_.matrices for c in m.checks
                            if c.verdict in ("WARN", "FAIL")})
            rec = {"factory": spec, "correct": correct, "verdict": rep_.verdict, "rules": rules,
                   "expected": rep_.verdict in expected, "seconds": dt,
                   "checks": dict(checks), "reasons": rep_.reasons[:3],
                   "T_used": sorted({m.horizon for m in rep_.matrices if hasattr(m, "horizon")})}
            records.append(rec)
            print(f"{spec.split(':')[-1]:>20} {rep_.verdict:>12} "
                  f"{'ok' if rec['expected'] else 'MISS':>4} {dt:7.1f} s  {rules}  "
                  f"{'; '.join(r[:110] for r in rep_.reasons[:2])}", flush=True)
    _summary(records)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(records, fh, indent=1)


def _summary(records: list[dict]) -> None:
    """Catch rate, false alarms, INCONCLUSIVE rate, median and maximum time."""
    bad = [r for r in records if not r["correct"]]
    good = [r for r in records if r["correct"]]
    if bad:
        print(f"catch rate {sum(r['expected'] for r in bad)}/{len(bad)}")
    if good:
        fa = sum(r["verdict"] in ("WARN", "FAIL") for r in good)
        print(f"false alarms {fa}/{len(good)}")
    inc = sum(r["verdict"] == "INCONCLUSIVE" for r in records)
    times = sorted(r["seconds"] for r in records)
    if times:
        print(f"INCONCLUSIVE {inc}/{len(records)}; median time {times[len(times) // 2]:.1f} s, "
              f"max {times[-1]:.1f} s")


if __name__ == "__main__":
    main()
