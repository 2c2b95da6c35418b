"""C* and C^E* of a matrix, solved once for the bound terms and tables that share them.

:func:`cached_lower_bound` is :func:`~duelbound.solvers.cstar.lower_bound` ([K16]
Theorem 2) with the default options, :func:`cached_ecw_bound` is
:func:`~duelbound.solvers.ecw.ecw_bound` ([K16] §4.2), each kept for the last 32 matrices.
When C* of a matrix was solved and certified first (:func:`~duelbound.solvers.comparison.
bound_table` does so), C^E* is clamped into the exact brackets C*'s certificate already
holds — the same exact matrix and cost bounds, as the bounds report does — instead of
being enclosed a second time (0.24 s of CPU at K = 136).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any

from ..theory.matrix import PreferenceMatrix
from .cstar import lower_bound
from .ecw import ECWBoundResult, ecw_bound

__all__ = ["cached_lower_bound", "cached_ecw_bound", "clear"]

_KEEP = 32
#: lower_bound(M) of the last _KEEP matrices used, least recently used first: one cache,
#: which cached_ecw_bound can read without solving
_LOWER: OrderedDict[PreferenceMatrix, Any] = OrderedDict()


def cached_lower_bound(M: PreferenceMatrix) -> Any:
    """:func:`~duelbound.solvers.cstar.lower_bound` of ``M`` (default options), cached."""
    lb = _LOWER.get(M)
    if lb is None:
        lb = _LOWER[M] = lower_bound(M)
        if len(_LOWER) > _KEEP:
            _LOWER.popitem(last=False)
    else:
        _LOWER.move_to_end(M)
    return lb


@functools.lru_cache(maxsize=_KEEP)
def cached_ecw_bound(M: PreferenceMatrix) -> ECWBoundResult:
    """:func:`~duelbound.solvers.ecw.ecw_bound` of ``M``, cached: clamped into the brackets
    of C*'s certificate when :func:`cached_lower_bound` certified ``M`` already, else
    enclosed on its own."""
    lb = _LOWER.get(M)
    enclosure = lb.proof.enclosure if lb is not None else None
    if enclosure is None:
        return ecw_bound(M)
    res = ecw_bound(M, enclose=False)
    res.clamp_to_enclosure(M, enclosure.ecw)
    return res


def clear() -> None:
    """Forget every cached solve (benchmarks time them cold; tests start clean)."""
    _LOWER.clear()
    cached_ecw_bound.cache_clear()
