"""Proof-carrying bounds: the independent checker of C* certificates (docs/certificates.md).

The checker (:mod:`.checker`) imports only the standard library; the certificates are
written by :meth:`duelbound.solvers.LowerBoundResult.certificate_document`.
"""

from .checker import CertificateError, check_certificate, check_file, kl_half_bounds

__all__ = ["CertificateError", "check_certificate", "check_file", "kl_half_bounds"]
