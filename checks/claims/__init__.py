"""The papers' theorem-like claims, checked on hypothesis-generated matrices.

Front door: :func:`check_claims` (the ``duelbound check-claims`` command); the claims
themselves, their floating-point evaluations and the search are in :mod:`.catalogue`, the
certified (rational interval) evaluations a refutation rests on in :mod:`.certified`.
"""

from .catalogue import CLAIMS, ClaimsReport, check_claims

__all__ = ["CLAIMS", "ClaimsReport", "check_claims"]
