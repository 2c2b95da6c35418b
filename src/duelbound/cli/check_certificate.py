"""Check a C* certificate without any solver (docs/certificates.md).

Reads a certificate written by 'duelbound bounds FILE --certificate cert.json' and checks
it with exact rational arithmetic and a rigorous logarithm enclosure; nothing from the
solver path (PuLP, HiGHS, numba, duelbound.solvers) is loaded, nor numpy or networkx (the
file is read with the standard library, errors come from the ground floor).  Exit 0: the certificate
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
import stat
import sys
import time

from ..errors import MatrixFileError

NAME = "check-certificate"
ORDER = 25
HELP = "check a C* certificate independently (exact arithmetic, no solver)"
#: Largest certificate file read (the cap of the matrix readers' text files).
MAX_BYTES = 256 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("certificate", metavar="CERT.json", help="the certificate file")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")


def run(args: argparse.Namespace) -> int:
    # the stdlib-only checker: no layer that imports numpy, networkx or numba
    from ..checks.proof import CertificateError, check_certificate, loads
    path = args.certificate
    text = read_certificate_text(path)
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


def read_certificate_text(path: str) -> str:
    """The UTF-8 text of the certificate file ``path`` (BOM removed), read with the standard
    library only; a missing, unreadable, non-regular, oversized or non-UTF-8 file is a
    :class:`~duelbound.errors.MatrixFileError` (one line at the CLI, exit 2)."""
    try:  # non-blocking: a FIFO is refused by fstat below instead of hanging the open
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise MatrixFileError(f"{path}: cannot read ({(exc.strerror or str(exc)).lower()})"
                              ) from None
    _require_regular(path, fd)
    with os.fdopen(fd, "rb") as fh:
        try:
            blob = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise MatrixFileError(f"{path}: cannot read ({exc})") from None
    if len(blob) > MAX_BYTES:  # the file grew after it was checked
        raise MatrixFileError(f"{path}: file too large (more than {MAX_BYTES} bytes)")
    try:  # a NUL byte decodes, and the JSON reader refuses it (no separate binary test)
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MatrixFileError(f"{path}: not a text file (not UTF-8)") from None


def _require_regular(path: str, fd: int) -> None:
    """Return if the open ``fd`` is a regular file of at most :data:`MAX_BYTES`; otherwise
    close it and raise the reason (checked on the descriptor: no race, no hang)."""
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_BYTES:
        return
    os.close(fd)
    if not stat.S_ISREG(info.st_mode):
        raise MatrixFileError(f"{path}: not a regular file (a directory, device, FIFO or "
                              "socket); only regular files are read")
    raise MatrixFileError(f"{path}: file too large ({info.st_size} bytes; the limit is "
                          f"{MAX_BYTES} bytes)")


def relative_width(lower: float, upper: float) -> float:
    """(upper − lower) / lower of a printed bracket — the one definition ``bounds`` and
    ``check-certificate`` both print (inf when lower ≤ 0)."""
    return (upper - lower) / lower if lower > 0 else float("inf")
