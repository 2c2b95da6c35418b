"""Check a C* certificate without any solver (docs/certificates.md).

Reads a certificate written by 'duelbound bounds FILE --certificate cert.json' and checks
it with exact rational arithmetic and a rigorous logarithm enclosure; nothing from the
solver path (PuLP, HiGHS, numba, duelbound.solvers) is loaded.  Exit 0: the certificate
proves its claim C* in [lower, upper]; exit 1: it does not (the reason is printed);
exit 2: the file cannot be read.

examples:
  duelbound check-certificate cert.json
  duelbound check-certificate cert.json --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

NAME = "check-certificate"
ORDER = 25
HELP = "check a C* certificate independently (exact arithmetic, no solver)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("certificate", metavar="CERT.json", help="the certificate file")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")


def run(args: argparse.Namespace) -> int:
    from ..checks.proof import CertificateError, check_certificate
    from ..theory.errors import MatrixFileError
    from ..theory.io import load_json, read_text_file

    path = args.certificate
    doc = load_json(read_text_file(path), os.path.basename(path))
    if not isinstance(doc, dict):
        raise MatrixFileError(f"{os.path.basename(path)}: a certificate is a JSON object")
    t0 = time.perf_counter()
    try:
        out = check_certificate(doc)
    except CertificateError as exc:
        verdict = {"valid": False, "reason": str(exc), "seconds": time.perf_counter() - t0}
        print(json.dumps(verdict) if args.json else f"INVALID: {exc}")
        return 1
    out = {"valid": True, **out, "seconds": time.perf_counter() - t0,
           "bytes": os.path.getsize(path)}
    if args.json:
        print(json.dumps(out))
    else:
        lo, hi = out["lower_float"], out["upper_float"]
        print(f"VALID: C* in [{lo!r}, {hi!r}] (relative width {(hi - lo) / lo:.2g}) for the "
              f"K = {out['K']} matrix in the certificate; Copeland winners {out['winners']}; "
              f"checked in {out['seconds']:.3g} s")
    sys.stdout.flush()
    return 0
