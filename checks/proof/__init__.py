"""Proof-carrying bounds: the independent checker of C* certificates (docs/certificates.md).

The checker (:mod:`.checker`) imports only the standard library; the certificates are
written by :meth:`duelbound.solvers.LowerBoundResult.certificate_document`.  The names are
loaded on first use (PEP 562), so ``python -m duelbound.checks.proof.checker`` runs the
module once, without runpy's "found in sys.modules" warning.
"""

from __future__ import annotations

__all__ = ["CertificateError", "check_certificate", "check_file", "kl_half_bounds", "loads"]


def __getattr__(name: str):
    if name in __all__:
        from . import checker

        return getattr(checker, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
