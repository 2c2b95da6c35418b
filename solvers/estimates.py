"""The answer for a table of win counts or a comparison log: one front door.

Win counts W (W_ij = duels arm i won against arm j) estimate the preference matrix by
µ̂_ij = W_ij / (W_ij + W_ji).  Where every pair was compared and none is won equally often,
µ̂ has a tournament and the answer is the plug-in one: C* ([K16] Theorem 2), C^E* ([K16]
§4.2) or the tournament structure of µ̂.  Where some pair is tied or never compared
(:func:`~duelbound.theory.counts.undefined_pairs`), the plug-in values do not exist and the
answer is the posterior under µ_ij ~ Beta(W_ij + 1, W_ji + 1) (docs/uncertainty.md): the
interval of C* and C^E* (:func:`~.interval.lower_bound_interval`) or the distribution of
the tournament (:func:`~duelbound.theory.posterior.posterior_structure`).

:func:`answer_counts` makes that decision, applies every size cap, solves the plug-in C*
once (the interval re-uses it) and returns a :class:`CountsAnswer` that renders itself
(:meth:`CountsAnswer.text`, :meth:`CountsAnswer.to_dict`), so ``duelbound bounds``,
``structure`` and ``table`` on counts call it and print.

Signature::

    answer_counts(counts, *, question="bounds", interval=None,
                  interval_method="posterior", draws=1000, cstar_draws="auto", seed=0,
                  break_ties=None, method="auto", certify=None, symbolic=False,
                  max_k=LP_MAX_K, workers=1, scheduler=None, progress=False) -> CountsAnswer

Examples
--------
>>> import numpy as np
>>> from duelbound.solvers.estimates import answer_counts
>>> ans = answer_counts(np.array([[0, 0, 9], [0, 0, 8], [1, 2, 0]]), draws=200, seed=0)
>>> ans.defined, ans.undefined.n_never, ans.interval.cstar.draws   # 0 and 1 never met
(False, 1, 200)
>>> answer_counts(np.array([[0, 7, 9], [3, 0, 6], [1, 4, 0]]), certify=False).defined
True
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from ..theory.errors import DuelboundError
from ..theory.matrix import PreferenceMatrix
from ..theory.posterior import MAX_SIGN_DRAWS, PosteriorStructure, posterior_structure
from ..theory.tournament import Structure, structure
from ..theory.win_counts import UndefinedPairs, WinCounts, as_win_counts, undefined_pairs
from .bounds_report import BoundsReport, bounds_report
from .cstar import LP_MAX_K
from .interval import DEFAULT_DRAWS, IntervalReport, lower_bound_interval

__all__ = ["answer_counts", "CountsAnswer", "QUESTIONS", "posterior_interval",
           "check_posterior_size"]

#: What :func:`answer_counts` is asked: the regret constants, or the tournament.
QUESTIONS = ("bounds", "structure")
_SHOWN = 3  # pairs named per kind in the text


@dataclass
class CountsAnswer:
    """The answer for win counts: plug-in where µ̂ has a tournament, posterior otherwise.

    Attributes
    ----------
    question : {"bounds", "structure"}
    counts : WinCounts
        The validated counts.
    undefined : UndefinedPairs
        Tied / never-compared pairs (all counted; listed up to K ≤ ``LP_MAX_K``).
    matrix : PreferenceMatrix or None
        The plug-in estimate µ̂ (with ``break_ties``: perturbed), None when undefined.
    bounds : BoundsReport or None
        ``"bounds"`` with µ̂ defined: C*, C^E* (and the interval when asked for).
    interval : IntervalReport or None
        The interval of C* and C^E*: asked for (``interval=LEVEL``), or the answer itself
        when µ̂ is undefined.
    structure : Structure or None
        ``"structure"`` with µ̂ defined: its tournament.
    posterior : PosteriorStructure or None
        ``"structure"`` with µ̂ undefined: the posterior distribution of the tournament.
    notes : list of str
        What was decided for the user (e.g. "answered from the posterior", fewer draws).
    """

    question: str
    counts: WinCounts
    undefined: UndefinedPairs
    matrix: PreferenceMatrix | None = None
    bounds: BoundsReport | None = None
    interval: IntervalReport | None = None
    structure: Structure | None = None
    posterior: PosteriorStructure | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def defined(self) -> bool:
        """Does the plug-in estimate have a tournament (so the answer is the plug-in one)?"""
        return self.matrix is not None

    @property
    def reason(self) -> str:
        """Why the plug-in answer is undefined ("" when it is defined)."""
        if self.defined:
            return ""
        u = self.undefined
        why = [f"{u.n_tied} pair(s) won equally often" if u.n_tied else "",
               f"{u.n_never} pair(s) never compared" if u.n_never else ""]
        return " and ".join(w for w in why if w)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the plug-in report when defined (``bounds``: ``matrix``,
        ``lower_bound``, ``ecw``[, ``interval``]; ``structure``: the structure with arm
        names), else ``plug_in`` (why it is undefined, the pairs) and ``interval`` or
        ``posterior``."""
        if self.bounds is not None:
            return self.bounds.to_dict()
        if self.structure is not None and self.matrix is not None:
            return self.structure.named_dict(self.matrix)
        u = self.undefined
        out: dict[str, Any] = {"plug_in": {"defined": False, "reason": self.reason,
                                           "n_tied": u.n_tied, "n_never_compared": u.n_never,
                                           "tied": [list(p) for p in u.tied],
                                           "never_compared": [list(p) for p in u.never]}}
        if self.interval is not None:
            out["interval"] = self.interval.to_dict()
        if self.posterior is not None:
            out["posterior"] = self.posterior.to_dict()
        return out

    def text(self, full: bool = False) -> str:
        """The plain-text answer (what ``duelbound bounds`` / ``structure`` print);
        ``full``: every arm of a structure."""
        if self.bounds is not None:
            return self.bounds.render()
        if self.structure is not None:
            return self.structure.render(self.matrix, full=full)
        out = [f"plug-in {'C*' if self.question == 'bounds' else 'tournament'}: undefined "
               f"— {self.reason}:"]
        for what, pairs, n in (("tied", self.undefined.tied, self.undefined.n_tied),
                               ("never compared", self.undefined.never, self.undefined.n_never)):
            if n:
                shown = "; ".join(f"{self.counts.label(i)} vs {self.counts.label(j)}"
                                  for i, j in pairs[:_SHOWN])
                more = f" ... {n - _SHOWN} more (see --json)" if n > _SHOWN else ""
                out += textwrap.wrap(f"{what}: {shown}{more}", 100, initial_indent="  ",
                                     subsequent_indent="    ", break_on_hyphens=False)
        out += ["The posterior over the matrix is defined whatever the counts; its "
                + ("interval" if self.interval is not None else "distribution") + " follows.",
                "(--break-ties EPS would perturb the tied pairs instead; every gap-dependent "
                "value", "would then be an artefact of EPS.)", ""]
        if self.interval is not None:
            out.append(self.interval.render())
        if self.posterior is not None:
            out.append(self.posterior.render(full=full))
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()


def check_posterior_size(K: int, name: str | None = None, why: str = "") -> None:
    """Refuse, before any K × K copy, a posterior interval it would take too long to draw:
    an LP per draw and draws × K(K − 1)/2 floats; limited to K ≤ :data:`~.cstar.LP_MAX_K`.

    ``why``, when given, comes first in the message (e.g. how many pairs leave the plug-in
    estimate undefined).

    Raises
    ------
    DuelboundError
        K > LP_MAX_K.
    """
    if K > LP_MAX_K:
        raise DuelboundError(f"{name + ': ' if name else ''}{why + '; ' if why else ''}"
                             "a posterior interval needs an LP "
                             f"per draw and draws x {K * (K - 1) // 2} pairs in memory at "
                             f"K = {K}; it is limited to K <= {LP_MAX_K} (compare the missing "
                             "pairs, or drop arms)")


def posterior_interval(counts: Any, **options: Any) -> IntervalReport:
    """:func:`~.interval.lower_bound_interval` of ``counts`` after :func:`check_posterior_size`
    (what the table of undefined estimates and :func:`answer_counts` call)."""
    C = as_win_counts(counts)
    check_posterior_size(C.K, C.name)
    return lower_bound_interval(C, **options)


def answer_counts(counts: Any, *, question: str = "bounds", interval: float | None = None,
                  interval_method: str = "posterior", draws: int = DEFAULT_DRAWS,
                  cstar_draws: int | str | None = "auto", seed: int | None = 0,
                  break_ties: float | None = None, method: str = "auto",
                  certify: bool | str | None = None, symbolic: bool = False,
                  max_k: int | None = LP_MAX_K, workers: int = 1, scheduler: str | None = None,
                  progress: bool = False) -> CountsAnswer:
    """The answer for win counts: plug-in where µ̂ has a tournament, posterior otherwise.

    Parameters
    ----------
    counts : WinCounts or array_like
        K × K win counts (``read_counts``, ``read_comparisons``, or an array), validated by
        :func:`~duelbound.theory.counts.as_win_counts`.
    question : {"bounds", "structure"}
        ``"bounds"``: C* and C^E* (:func:`~.bounds_report.bounds_report` on µ̂, or the
        posterior interval); ``"structure"``: the tournament (of µ̂, or its posterior
        distribution).
    interval : float, optional
        With ``"bounds"`` and µ̂ defined: also the interval at this level (the plug-in C*
        is solved once and re-used).  Where µ̂ is undefined the interval is the answer, at
        this level (default 0.95).
    interval_method : {"posterior", "bootstrap"}
        As ``method`` of :func:`~.interval.lower_bound_interval`; the bootstrap resamples
        µ̂, so it is refused where µ̂ is undefined.
    draws, cstar_draws, seed
        Posterior draws (also of the structure), draws given C* (``"all"`` or None:
        every draw; ``"auto"``: a rule of K), their seed.
    break_ties : float, optional
        Perturb tied pairs by EPS (the plug-in answer is then defined, for the perturbed
        matrix); never-compared pairs still leave µ̂ undefined.
    method, certify, symbolic, max_k, progress
        As in :func:`~.cstar.lower_bound` for the plug-in C*.
    workers : int
        Worker processes of a local Dask cluster for the C* draws of the interval (used when
        the LP work is large enough: :func:`~.draws.solve_cstar_draws`).
    scheduler : str, optional
        Address of an existing Dask cluster (``tcp://host:port``): every C* draw of the
        interval is a task there.

    Returns
    -------
    CountsAnswer

    Raises
    ------
    InvalidMatrixError
        Counts that are not win counts (negative, fractional other than paired halves...).
    DuelboundError
        Unknown question; bootstrap where µ̂ is undefined; a posterior interval at
        K > ``LP_MAX_K``; a posterior structure over more than ``MAX_SIGN_DRAWS`` / 10
        pairs; the options of the solvers.
    """
    if question not in QUESTIONS:
        raise DuelboundError(f"unknown question {question!r}; choose from {QUESTIONS}")
    C = as_win_counts(counts)
    u = undefined_pairs(C, limit=LP_MAX_K * LP_MAX_K if C.K <= LP_MAX_K else 0)
    M = None if u.n_never or (u.n_tied and break_ties is None) else C.matrix(
        break_ties=break_ties)
    ans = CountsAnswer(question, C, u, M)
    interval_options: dict[str, Any] = {
        "draws": draws, "seed": seed, "workers": workers, "progress": progress,
        "cstar_draws": cstar_draws, "scheduler": scheduler}
    if M is not None and question == "structure":
        ans.structure = structure(M)
    elif M is not None:
        ans.bounds = bounds_report(M, method=method, certify=True if symbolic and certify
                                   is None else certify, symbolic=symbolic, max_k=max_k,
                                   progress=progress)
        if interval is not None:
            ans.interval = ans.bounds.interval = lower_bound_interval(
                C, level=interval, method=interval_method, break_ties=break_ties,
                plug_in=ans.bounds.lower_bound, **interval_options)
    elif question == "structure":
        ans.posterior = _posterior_structure(C, draws, seed, ans.notes)
    else:
        if interval_method != "posterior":
            raise DuelboundError(f"the {interval_method} interval resamples mu_hat, which is "
                                 f"undefined here ({ans.reason}); use the posterior interval")
        level = 0.95 if interval is None else interval
        ans.notes.append(f"the plug-in C* is undefined ({u.n_tied} tied, {u.n_never} never "
                         f"compared pair(s)); answered with the {level:g} posterior interval "
                         f"({draws} draws)")
        check_posterior_size(C.K, C.name, why=f"the plug-in C* is undefined ({u.n_tied} tied, "
                             f"{u.n_never} never compared pair(s))")
        ans.interval = posterior_interval(C, level=level, **interval_options)
    return ans


def _posterior_structure(C: WinCounts, draws: int, seed: int | None, notes: list[str]
                         ) -> PosteriorStructure:
    """The posterior tournament with at most :data:`MAX_SIGN_DRAWS` sign draws (fewer draws
    said in ``notes``; refused below 10 draws)."""
    pairs = C.K * (C.K - 1) // 2
    if pairs * draws > MAX_SIGN_DRAWS:
        if pairs * 10 > MAX_SIGN_DRAWS:
            raise DuelboundError(f"the tournament of mu_hat is undefined and its posterior over "
                                 f"{pairs} pairs is too large to sample (K = {C.K}); compare "
                                 "the missing pairs, or drop arms")
        notes.append(f"{MAX_SIGN_DRAWS // pairs} posterior draws instead of {draws} "
                     f"(K = {C.K}: {pairs} pairs per draw)")
        draws = MAX_SIGN_DRAWS // pairs
    u = undefined_pairs(C, limit=0)
    notes.append(f"the tournament of mu_hat is undefined ({u.n_tied} tied, {u.n_never} never "
                 "compared pair(s)); answered with its posterior distribution")
    return posterior_structure(C, draws=draws, seed=seed)
