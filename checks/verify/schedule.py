"""Sequential horizons: the matrices a horizon left undecided are run again at 4T, 16T, ...

The first stage runs every matrix at the T asked for.  A matrix is *undecided* when its
consistency or lower-bound check is INCONCLUSIVE with nothing worse established, or
when the consistency check found linear growth at this T only: an algorithm that knows
T may still be exploring (explore-then-commit with c log T duels per pair), so linear
growth is confirmed at 4T (:func:`.verdicts.confirmed_linear`).  The next stage runs
the undecided matrices at four times the horizon when its estimated cost (about four
times this stage's seconds per matrix) fits ``--extend-budget`` — seconds allowed after
the first stage — and the horizon stays at most :data:`MAX_EXTENDED_T`; otherwise the
undecided checks say what the next horizon would have cost
(:func:`.verdicts.beyond_budget`).  The verdicts themselves are :mod:`.verdicts`'.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

from . import verdicts as V
from .report import MatrixReport

__all__ = ["MAX_EXTENDED_T", "EXTENDED_CHECKS", "Schedule", "undecided", "linear"]

#: Largest horizon the sequential extension goes to.
MAX_EXTENDED_T = 10_000_000
#: Checks whose INCONCLUSIVE sends a matrix to the next horizon.
EXTENDED_CHECKS = ("consistency", "lower bound")
#: Factor between successive horizons.
GROWTH = 4


def linear(report: MatrixReport) -> bool:
    """Is the matrix's consistency FAIL the linear-growth rule (to be confirmed at 4T)?"""
    return any(V.is_linear(c) for c in report.checks)


def undecided(report: MatrixReport, linear_before: bool = False) -> bool:
    """Would a larger T decide this matrix?  An INCONCLUSIVE consistency or lower-bound
    check with nothing worse established; or linear growth seen at this T only (the
    only FAIL)."""
    if linear(report) and not linear_before and \
            sum(c.verdict == "FAIL" for c in report.checks) == 1:
        return True
    if report.verdict in ("WARN", "FAIL") or not report.runs:
        return False
    return any(c.name in EXTENDED_CHECKS and c.verdict == "INCONCLUSIVE"
               for c in report.checks)


class Schedule:
    """The stages of a verification: ``for horizon, todo in schedule`` gives each stage's
    horizon and matrix indices; :meth:`judged` takes the stage's reports and decides the
    next stage.

    Parameters
    ----------
    T : int
        The first horizon.
    n_matrices : int
        Matrices in the suite (all run in the first stage).
    extend_budget : float
        Seconds allowed for the stages after the first.
    start : float
        ``time.perf_counter()`` at the start of the verification.
    """

    def __init__(self, T: int, n_matrices: int, extend_budget: float, start: float):
        self.T, self.extend_budget, self.start = T, extend_budget, start
        self.horizon = T
        self.todo: list[int] = list(range(n_matrices))
        self.spent_first = 0.0
        self._t_stage = 0.0

    def __iter__(self) -> Iterator[tuple[int, list[int]]]:
        while self.todo:
            self._t_stage = time.perf_counter()
            yield self.horizon, list(self.todo)

    @property
    def first(self) -> bool:
        return self.horizon == self.T

    def judged(self, reports: dict[int, MatrixReport], previous: dict[int, MatrixReport],
               stopped: bool) -> dict[int, MatrixReport]:
        """The stage is judged (``reports`` of its matrices; ``previous``: their reports at
        the stage before, where there was one); ``stopped``: interrupted or out of budget.
        Decides the next stage and returns the reports, the undecided ones annotated
        when the next horizon does not fit the budget."""
        stage = time.perf_counter() - self._t_stage
        self.spent_first = self.spent_first or stage
        todo, self.todo = self.todo, []
        if stopped:
            return reports
        still = [mi for mi in todo if undecided(reports[mi], mi in previous
                                                and linear(previous[mi]))]
        # the next stage costs ~4x this one per matrix (T x 4): run it if it fits
        cost = stage * GROWTH * len(still) / max(len(todo), 1)
        elapsed_extra = time.perf_counter() - self.start - self.spent_first
        nxt = self.horizon * GROWTH
        if still and nxt <= MAX_EXTENDED_T and elapsed_extra + cost <= self.extend_budget:
            self.todo, self.horizon = still, nxt
            return reports
        out = dict(reports)
        for mi in still:
            out[mi] = replace(reports[mi], checks=V.beyond_budget(
                reports[mi].checks, self.horizon, nxt, cost, self.extend_budget,
                EXTENDED_CHECKS))
        return out
