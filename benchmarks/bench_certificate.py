"""Certificate files: write and check times and sizes (issue 24, docs/certificates.md).

For random tournaments at each K: the time of ``lower_bound(M, certify=True)`` (LP, exact
certificate, enclosure), of building and serialising the document, of the independent
checker (``duelbound.checks.proof``, standard library only), and the file size.

    python benchmarks/bench_certificate.py                # K = 16, 64, 136
    python benchmarks/bench_certificate.py --K 16 64 --seeds 0 1
"""

from __future__ import annotations

import argparse
import json
import time

from duelbound.checks.proof import check_certificate
from duelbound.solvers import lower_bound
from duelbound.theory.generators import random_matrix


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--K", type=int, nargs="+", default=[16, 64, 136])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    print(f"{'K':>4} {'seed':>4} {'certify s':>10} {'write s':>8} {'check s':>8} "
          f"{'KiB':>8} {'dual rows':>9} {'rel width':>9}")
    for K in args.K:
        for seed in args.seeds:
            M = random_matrix(K, seed)
            t0 = time.perf_counter()
            res = lower_bound(M, certify=True)
            t1 = time.perf_counter()
            text = json.dumps(res.certificate_document(), separators=(",", ":"))
            t2 = time.perf_counter()
            out = check_certificate(json.loads(text))
            t3 = time.perf_counter()
            rows = sum(len(w["dual"]) for w in json.loads(text)["per_winner"])
            width = (out["upper_float"] - out["lower_float"]) / out["lower_float"]
            print(f"{K:>4} {seed:>4} {t1 - t0:>10.2f} {t2 - t1:>8.2f} {t3 - t2:>8.2f} "
                  f"{len(text) / 1024:>8.1f} {rows:>9} {width:>9.2g}", flush=True)


if __name__ == "__main__":
    main()
