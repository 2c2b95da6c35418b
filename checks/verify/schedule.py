"""Sequential stages: the matrices a stage left undecided get more runs, or a longer horizon.

The first stage runs every matrix at the T and with the runs asked for.  After each
stage the extension budget is spent where the decision is:

* **more runs** at the same horizon, where the question is "linear in a share of runs"
  (the consistency check's rules :data:`.verdicts.MORE_RUNS_RULES`: a binomial test on
  the runs inconsistent on their own that is not yet significant): the runs are doubled,
  up to :data:`MAX_RUN_FACTOR` times those asked for;
* a **longer horizon** (4T, 16T, ..., up to :data:`MAX_EXTENDED_T`) where the question is
  "log or polynomial": a consistency or lower-bound check INCONCLUSIVE with nothing
  worse established, or a growth verdict seen at one horizon only (linear FAIL or
  faster-than-log WARN: an algorithm that knows T may still be exploring at T;
  :func:`.verdicts.confirmed_linear`).

A stage runs only when its estimated cost — the seconds per (run × duel) of the stage
before, times the runs and duels it needs — fits both what is left of
``--extend-budget`` (seconds allowed after the first stage) and of ``--budget`` (for
everything).  Once a matrix has a settled FAIL the verdict cannot change: no further
stage runs (early stopping).  What stays undecided says what the next stage would have
cost (:func:`.verdicts.beyond_budget`).  The verdicts themselves are :mod:`.verdicts`'.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import replace

from . import verdicts as V
from .report import MatrixReport

__all__ = ["MAX_EXTENDED_T", "MAX_RUN_FACTOR", "EXTENDED_CHECKS", "Schedule", "undecided",
           "linear", "wants_runs"]

#: Largest horizon the sequential extension goes to.
MAX_EXTENDED_T = 10_000_000
#: Most runs per matrix, as a multiple of the runs asked for.
MAX_RUN_FACTOR = 4
#: Checks whose INCONCLUSIVE sends a matrix to the next horizon.
EXTENDED_CHECKS = ("consistency", "lower bound")
#: Factor between successive horizons.
GROWTH = 4


def linear(report: MatrixReport) -> bool:
    """Is the matrix's consistency verdict a growth rule seen at one horizon (linear
    FAIL or faster-than-log WARN, to be confirmed at 4T)?"""
    return any(V.to_confirm(c) for c in report.checks)


def wants_runs(report: MatrixReport) -> bool:
    """Is the matrix undecided on "linear in a share of runs" (more runs decide it),
    with nothing else established?"""
    return any(V.wants_runs(c) for c in report.checks) and \
        all(c.verdict in ("PASS", "INCONCLUSIVE") or V.wants_runs(c) for c in report.checks)


def undecided(report: MatrixReport, linear_before: bool = False) -> bool:
    """Would a larger T decide this matrix?  An INCONCLUSIVE consistency or lower-bound
    check with nothing worse established; or a growth verdict seen at this T only, the
    only WARN or FAIL."""
    bad = [c for c in report.checks if c.verdict in ("WARN", "FAIL")]
    if linear(report) and not linear_before and all(V.to_confirm(c) for c in bad):
        return True
    if bad or not report.runs:
        return False
    return any(c.name in EXTENDED_CHECKS and c.verdict == "INCONCLUSIVE"
               for c in report.checks)


def _settled_fail(report: MatrixReport, linear_before: bool) -> bool:
    return report.verdict == "FAIL" and not undecided(report, linear_before)


class Schedule:
    """The stages of a verification: ``for horizon, todo in schedule`` gives each stage's
    horizon and matrix indices (:attr:`runs` the runs per matrix it needs; planned jobs
    go through :meth:`new_jobs`); :meth:`judged` takes the stage's reports and decides
    the next stage.

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
    runs : int
        Runs per matrix asked for (the first stage's).
    budget : float
        Seconds for the whole verification (no stage is started that would not fit).
    """

    def __init__(self, T: int, n_matrices: int, extend_budget: float, start: float,
                 runs: int = 10, budget: float = math.inf):
        self.T, self.extend_budget, self.start, self.budget = T, extend_budget, start, budget
        self.horizon = T
        self.base_runs = self.runs = runs
        self.made = 0                  # runs per matrix already made at this horizon
        self.todo: list[int] = list(range(n_matrices))
        self.deferred: list[int] = []  # undecided at this horizon, waiting for 4T
        self.spent_first = 0.0
        self._t_stage = 0.0

    def __iter__(self) -> Iterator[tuple[int, list[int]]]:
        while self.todo:
            self._t_stage = time.perf_counter()
            yield self.horizon, list(self.todo)

    @property
    def first(self) -> bool:
        return self.horizon == self.T and self.made == 0

    def new_jobs(self, jobs: list) -> list:
        """The jobs of this stage among ``jobs`` (planned for :attr:`runs` runs): in a
        more-runs stage only runs not made yet (the determinism twin is not repeated)."""
        return [j for j in jobs if j.key[2] >= self.made and
                not (self.made and j.key[0] == "twin")]

    def judged(self, reports: dict[int, MatrixReport], previous: dict[int, MatrixReport],
               stopped: bool) -> dict[int, MatrixReport]:
        """The stage is judged (``reports`` of its matrices; ``previous``: every report so
        far); ``stopped``: interrupted or out of budget.  Decides the next stage and returns
        the reports, the undecided ones annotated when their next stage does not run."""
        stage = time.perf_counter() - self._t_stage
        per_run_duel = stage / max(len(self.todo) * (self.runs - self.made) * self.horizon, 1)
        self.spent_first = self.spent_first or stage
        todo, self.todo = self.todo, []
        if stopped:
            return reports
        every = {**previous, **reports}

        def before(mi: int) -> bool:   # a growth verdict seen at the horizon before
            return mi in previous and previous[mi].horizon < reports.get(
                mi, previous[mi]).horizon and linear(previous[mi])

        settled = [mi for mi in every if _settled_fail(every[mi], mi in reports and
                                                       before(mi))]
        more = [mi for mi in todo if wants_runs(reports[mi])
                and self.runs < MAX_RUN_FACTOR * self.base_runs]
        longer = self.deferred + [mi for mi in todo if mi not in more and
                                  undecided(reports[mi], before(mi))]
        self.deferred = []
        left = min(self.extend_budget - (time.perf_counter() - self.start - self.spent_first),
                   self.budget - (time.perf_counter() - self.start))
        if more and not settled:
            cost = per_run_duel * len(more) * self.runs * self.horizon
            if cost <= left:
                self.todo, self.made, self.runs = more, self.runs, 2 * self.runs
                self.deferred = longer
                return reports
        nxt = self.horizon * GROWTH
        cost = per_run_duel * len(longer) * self.base_runs * nxt
        if longer and not settled and nxt <= MAX_EXTENDED_T and cost <= left:
            self.todo, self.horizon = longer, nxt
            self.made, self.runs = 0, self.base_runs
            return reports
        return self._annotated(reports, every, more, longer, settled, per_run_duel)

    def _annotated(self, reports, every, more, longer, settled, per_run_duel):
        """The reports, where a next stage does not run: why, and what it would cost."""
        out = dict(reports)
        why = None
        if settled:
            why = "the verdict is FAIL on " + ", ".join(every[mi].name for mi in settled)
        for mi in more:
            out[mi] = replace(every[mi], checks=V.beyond_budget(
                every[mi].checks, self.horizon, self.horizon,
                per_run_duel * self.runs * self.horizon, self.extend_budget,
                EXTENDED_CHECKS, more_runs=self.runs, why=why))
        nxt = self.horizon * GROWTH
        for mi in longer:
            out[mi] = replace(every[mi], checks=V.beyond_budget(
                every[mi].checks, self.horizon, nxt, per_run_duel * self.base_runs * nxt,
                self.extend_budget, EXTENDED_CHECKS, why=why))
        return out
