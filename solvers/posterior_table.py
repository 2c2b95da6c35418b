"""The bound table of win counts whose estimate has no tournament (ties, unobserved pairs).

A pair won equally often, or never compared, leaves µ̂ without a tournament: C* (Komiyama
et al. 2016, Theorem 2), Δ_min and every upper-bound term are undefined for it.  What the
data do determine is the posterior of C* and C^E* (:func:`~.interval.lower_bound_interval`,
docs/uncertainty.md).  :func:`posterior_table` puts that answer in the same
:class:`~.tables.Table` as the bound comparison, so ``duelbound table`` prints it in every
format (Markdown, LaTeX, CSV, JSON); the upper-bound terms, whose 1/Δ² and Δ_min terms
depend on gaps the data cannot resolve, are said to be undefined rather than printed.

Examples
--------
>>> import numpy as np
>>> from duelbound.solvers.posterior_table import posterior_table
>>> W = np.array([[0, 6, 9], [6, 0, 8], [1, 2, 0]])   # arms 0 and 1 tied 6 : 6
>>> t = posterior_table([W], draws=200)
>>> [c.key for c in t.columns][:4]
['matrix', 'K', 'undefined', 'winner']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..theory.win_counts import as_win_counts, undefined_pairs
from .estimates import check_posterior_size
from .interval import lower_bound_interval
from .tables import Cell, Column, Markup, Table, latex_escape

__all__ = ["posterior_table", "undefined_estimates"]

_C = Markup("C*", "$C^{*}$")
_CE = Markup("C^E*", "$C^{E*}$")
_LOG_T = Markup("x log T", r"$\times\log T$")
_DMIN = Markup("Delta_min", r"$\Delta_{\min}$")


def undefined_estimates(counts: Sequence[Any], break_ties: float | None = None) -> list[Any]:
    """The win counts among ``counts`` whose estimate µ̂ has no tournament, so no row in a
    bound table: a pair never compared, or one won equally often unless ``break_ties``
    perturbs it (the rule of :func:`~.estimates.answer_counts`).  :func:`posterior_table`
    answers for them.

    Examples
    --------
    >>> import numpy as np
    >>> tied, fine = np.array([[0, 6], [6, 0]]), np.array([[0, 7], [3, 0]])
    >>> [len(undefined_estimates([tied, fine])), len(undefined_estimates([tied], 1e-3))]
    [1, 0]
    """
    out = []
    for C in counts:
        u = undefined_pairs(as_win_counts(C), limit=0)
        if u.n_never or (u.n_tied and break_ties is None):
            out.append(C)
    return out


def posterior_table(counts: Sequence[Any], *, level: float = 0.95, draws: int = 1000,
                    seed: int | None = 0, cstar_draws: int | str | None = "auto",
                    workers: int = 1, progress: bool = False, scheduler: str | None = None
                    ) -> Table:
    """One row per set of win counts: the posterior of C* and C^E* where µ̂ has none.

    Parameters
    ----------
    counts : sequence of array_like or ``WinCounts``
        Win counts (K × K); named ones (``.name``, ``.arms``) label rows and winners.
    level, draws, seed, cstar_draws, workers, progress, scheduler
        As in :func:`~.interval.lower_bound_interval` (``cstar_draws="auto"`` by default:
        C* needs an LP per draw).

    Returns
    -------
    Table
        komiyama convention, coefficients of log T.
    """
    pct = f"{100 * level:g}%"
    cols = [Column("matrix", "matrix", align="l"), Column("K", "K"),
            Column("undefined", "tied / never compared pairs", align="l", notes=("a",)),
            Column("winner", "most likely Copeland winner", align="l", notes=("b",)),
            Column("C*", _C, unit=_LOG_T, sub="median", group=_C, notes=("c",)),
            Column("C*:lo", f"C* {pct} low", group=_C, sub=f"{pct} low"),
            Column("C*:hi", f"C* {pct} high", group=_C, sub=f"{pct} high"),
            Column("C*:draws", "C* draws", group=_C, sub="draws"),
            Column("C^E*", _CE, unit=_LOG_T, sub="median", group=_CE),
            Column("C^E*:lo", f"C^E* {pct} low", group=_CE, sub=f"{pct} low"),
            Column("C^E*:hi", f"C^E* {pct} high", group=_CE, sub=f"{pct} high"),
            Column("upper", "upper-bound terms", align="l", notes=("d",))]
    rows = []
    for idx, raw in enumerate(counts):
        C = as_win_counts(raw)
        label = C.name or f"counts{idx + 1}"
        check_posterior_size(C.K, label)  # before the draws' copies
        rep = lower_bound_interval(C, level=level, draws=draws, seed=seed,
                                   cstar_draws=cstar_draws, workers=workers, progress=progress,
                                   scheduler=scheduler)
        u = undefined_pairs(C, limit=0)
        top, share = rep.winner_sets[0] if rep.winner_sets else ((), 0.0)
        rows.append({
            "matrix": label, "K": rep.K,
            "undefined": f"{u.n_tied} / {u.n_never}",
            "winner": f"{', '.join(rep.label(i) for i in top)} (P = {share:.3f})",
            "C*": rep.cstar.median, "C*:lo": rep.cstar.lower,
            "C*:hi": _upper(rep.cstar), "C*:draws": rep.cstar.draws,
            "C^E*": rep.ecw.median, "C^E*:lo": rep.ecw.lower, "C^E*:hi": _upper(rep.ecw),
            "upper": "undefined"})
    mu_hat = Markup("mu_hat_ij = W_ij / (W_ij + W_ji)",
                    r"$\hat\mu_{ij} = W_{ij}/(W_{ij}+W_{ji})$")
    beta = Markup("mu_ij ~ Beta(W_ij + 1, W_ji + 1)",
                  r"$\mu_{ij} \sim \mathrm{Beta}(W_{ij}+1, W_{ji}+1)$")
    footnotes: dict[str, str | Markup] = {
        "a": _join("Pairs won equally often / never compared: the plug-in estimate ", mu_hat,
                   " has no tournament, so its ", _C, ", ", _DMIN, " and bound terms do not "
                   "exist."),
        "b": "The most frequent Copeland winner set among the posterior draws and its share.",
        "c": _join(f"Posterior median and equal-tailed {pct} interval under ", beta,
                   ", independent pairs (Komiyama et al. 2016, Theorem 2 and Sec. 4.2 on each "
                   "draw); ", _C, " solved on the first 'draws' draws (an LP each), ", _CE,
                   " on every draw; 'unbounded': a pair of undecided sign drives the constant "
                   "to infinity. Monte Carlo bands: ", _CODE_INTERVAL, "."),
        "d": _join("The upper-bound terms (CCB, SCB, D-TS, ECW-RMED) involve ",
                   Markup("1/Delta^2", r"$1/\Delta^2$"), " and ", _DMIN,
                   ", gaps the data cannot resolve here; ", _CODE_BREAK,
                   " computes them for a perturbed matrix, where they are artefacts of EPS."),
    }
    return Table(f"C* and C^E* from the posterior ({pct}); the estimates have no tournament",
                 cols, rows, footnotes=footnotes, convention="komiyama",
                 notes=["Posterior answers: the plug-in values are undefined (footnote a)."],
                 index=("matrix",))


_CODE_INTERVAL = Markup("duelbound bounds --interval --json",
                        r"\texttt{duelbound bounds -{}-interval -{}-json}")
_CODE_BREAK = Markup("--break-ties EPS", r"\texttt{-{}-break-ties EPS}")


def _join(*parts: str | Markup) -> Markup:
    """Plain text and LaTeX of ``parts``: strings are escaped for LaTeX, Markup kept."""
    return Markup("".join(str(p) for p in parts),
                  "".join(p.latex if isinstance(p, Markup) else latex_escape(p) for p in parts))


def _upper(b: Any) -> Any:
    return Cell(None, text="unbounded") if b.upper is None else b.upper
