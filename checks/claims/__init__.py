"""The papers' theorem-like claims, checked on hypothesis-generated matrices.

Front door: :func:`check_claims` (the ``duelbound check-claims`` command); the claims
themselves, their evaluations and certified refutations are in :mod:`.catalogue`.
"""

from .catalogue import CLAIMS, ClaimsReport, check_claims

__all__ = ["CLAIMS", "ClaimsReport", "check_claims"]
