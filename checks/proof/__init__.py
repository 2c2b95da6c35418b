"""Proof-carrying bounds: the independent checker of C* certificates (docs/certificates.md).

The checker (:mod:`.checker`) imports only the standard library; the certificates are
written by :meth:`duelbound.solvers.LowerBoundResult.certificate_document`.  Its names are
resolved on first use (PEP 562) rather than imported here: ``python -m
duelbound.checks.proof.checker`` imports this package first, and a package that had already
imported the module being run makes runpy warn and the module exist twice.
"""

from __future__ import annotations

import importlib

__all__ = ["CertificateError", "check_certificate", "check_file", "kl_half_bounds", "loads"]


def __getattr__(name: str):
    if name in __all__:
        return getattr(importlib.import_module(".checker", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
