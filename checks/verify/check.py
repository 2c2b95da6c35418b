"""The verdict of one check of ``duelbound verify``, and what every rule family shares.

:class:`Check` is one verdict with the statistic and the rule behind it (frozen: a rule
that revises a verdict derives a new one with :func:`dataclasses.replace`); :data:`ORDER`
ranks the four outcomes; :func:`c_star` solves C* of a matrix for the lower-bound and
reference checks.  The rules live in :mod:`.consistency`, :mod:`.comparison` and
:mod:`.verdicts`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...theory.regret import regret_matrix

__all__ = ["ORDER", "Check", "CStar", "worst", "c_star", "regret_pairs"]

ORDER = {"PASS": 0, "INCONCLUSIVE": 1, "WARN": 2, "FAIL": 3}


@dataclass(frozen=True)
class Check:
    """One verdict with the statistic behind it, made by a rule and never edited afterwards.

    Attributes
    ----------
    name : str
        The check (``"protocol"``, ``"consistency"``, ``"lower bound"``, ...).
    verdict : str
        PASS, INCONCLUSIVE, WARN or FAIL (:data:`ORDER`).
    message : str
        One line for the report (it may quote text from the algorithm's process).
    statistic : dict
        The numbers behind the verdict (JSON-ready).
    rule : str
        The rule that decided the verdict (e.g. ``"linear"``, ``"partial-runs"``;
        :mod:`.verdicts` lists where each family lives).
    """

    name: str
    verdict: str
    message: str
    statistic: dict[str, Any] = field(default_factory=dict)
    rule: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict, "message": self.message,
                "statistic": self.statistic, "rule": self.rule}


@dataclass(frozen=True)
class CStar:
    """C* of a matrix as the checks use it ([K16] Th. 2): the value, the allocation q*
    (K x K), or the solver's error instead."""

    value: float | None
    allocation: np.ndarray | None = None
    error: str | None = None


def worst(verdicts: Iterable[str]) -> str:
    """The worst verdict of ``verdicts`` (PASS when there is none)."""
    return max(verdicts, key=ORDER.__getitem__, default="PASS")


def c_star(M) -> CStar:
    """C* of ``M`` with its allocation q* ([K16] Th. 2, by
    :func:`duelbound.solvers.cstar.lower_bound`), or the solver's error (reported in the
    checks, never hidden)."""
    try:
        from ...solvers.cstar import lower_bound

        res = lower_bound(M, certify=False)
        return CStar(float(res.value), np.asarray(res.allocation, dtype=float))
    except Exception as exc:  # noqa: BLE001
        return CStar(None, None, f"{type(exc).__name__}: {exc}")



def regret_pairs(M) -> np.ndarray:
    """K x K booleans: True where dueling (i, j) costs regret (binary regret of
    :func:`duelbound.theory.regret.regret_matrix`)."""
    return regret_matrix(M, "binary") > 0
