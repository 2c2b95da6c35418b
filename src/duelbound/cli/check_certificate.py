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
    from ..checks.proof import CertificateError, check_certificate, loads
    from ..theory.errors import MatrixFileError
    from ..theory.io import read_text_file

    path = args.certificate
    text = read_text_file(path)
    t0 = time.perf_counter()
    try:  # the checker's own JSON reading: duplicate keys, NaN, Infinity are INVALID
        out = check_certificate(loads(text))
    except CertificateError as exc:
        verdict = {"valid": False, "kind": exc.kind, "reason": str(exc),
                   "seconds": time.perf_counter() - t0}
        print(json.dumps(verdict) if args.json else f"INVALID: {exc}")
        return 1
    except ValueError as exc:  # not JSON at all: the file cannot be read as a certificate
        raise MatrixFileError(f"{os.path.basename(path)}: invalid JSON ({exc})") from None
    out = {"valid": True, **out, "seconds": time.perf_counter() - t0,
           "bytes": os.path.getsize(path)}
    if args.json:
        print(json.dumps(out))
    else:
        lo, hi = out["lower_float"], out["upper_float"]
        print(f"VALID: C* in [{lo!r}, {hi!r}] (relative width {relative_width(lo, hi):.2g}) "
              f"for the K = {out['K']} matrix in the certificate; Copeland winners "
              f"{out['winners']}; checked in {out['seconds']:.3g} s")
    sys.stdout.flush()
    return 0


def relative_width(lower: float, upper: float) -> float:
    """(upper − lower) / lower of a printed bracket — the one definition ``bounds`` and
    ``check-certificate`` both print (inf when lower ≤ 0)."""
    return (upper - lower) / lower if lower > 0 else float("inf")
