"""Bound-comparison tables: every algorithm's guarantee next to the optimum C*.

:func:`bound_table` evaluates the bounds of :mod:`.bound_terms` on several
matrices, restates them in one regret convention (the factor is shown), and
divides the exact log T coefficients by C* ([K16] Theorem 2).  The result is a
:class:`BoundTable`; :meth:`BoundTable.to_table` gives a generic
:class:`~duelbound.solvers.tables.Table` (Markdown / LaTeX / CSV / JSON) and
:meth:`BoundTable.plot` a log-scale chart, all from the same numbers.

Decisions (docs/bounds.md):

* ratios to C* and the implied regret at T are given for exact coefficients
  only; for order terms (no constant) both are omitted (shown as "—"), because
  the number inside O(·) has no scale to compare;
* a log log T coefficient gets no ratio (it multiplies a different function of
  T) but does get its implied value at T (coefficient × log log T);
* in the ``binary`` convention the factor depends on the matrix: upper bounds
  are multiplied by the largest per-pair ratio, C* by the smallest (both stay
  valid bounds; the footnotes say they are not exact).

Examples
--------
>>> from duelbound.theory import examples
>>> bt = bound_table([examples.load("cyclic")], bounds=["ccb"], log_T=10.0)
>>> round(bt.entries[0].conversions[0].value, 6), bt.entries[0].conversions[0].factor
(800.0, 0.5)
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from duelbound.theory.errors import DuelboundError
from duelbound.theory.matrix import PreferenceMatrix
from duelbound.theory.regret import check_convention

from .bound_terms import (
    DEFAULT_BOUNDS,
    KIND_LOG_T,
    KIND_LOGLOG_T,
    KIND_ORDER,
    BoundTerm,
    Conversion,
    _convert,
    _lower,
    upper_bounds,
)
from .tables import Cell, Column, Table, render

__all__ = ["bound_table", "BoundTable", "BoundTableEntry", "SHORT_LABELS", "plot_bounds"]

#: Column labels of the bounds in tables and plots.
SHORT_LABELS = {
    "cw-rmed": "CW-RMED", "ecw-rmed": "ECW-RMED C^E*", "ecw-rmed-11": "ECW-RMED (11)",
    "ecw-rmed-12": "ECW-RMED (12)", "ccb": "CCB Th.3", "ccb-expected": "CCB (1)",
    "scb": "SCB Th.5", "scb-relaxed": "SCB Th.5 relaxed", "scb-lemma6": "SCB L.6",
    "scb-lemma6-relaxed": "SCB L.6 relaxed", "d-ts-prop1": "D-TS Prop.1",
    "d-ts-th1": "D-TS Th.1", "d-ts-th1-loglog": "D-TS Th.1 loglog", "savage": "SAVAGE",
}

_UNIT = {KIND_LOG_T: "x {m}", KIND_LOGLOG_T: "x {m}", KIND_ORDER: "O(.) x {m}, no constant"}


@dataclass
class BoundTableEntry:
    """One matrix of a :class:`BoundTable`: C*, the bounds and their conversions."""

    matrix: str
    K: int
    lower: float                    # C* (komiyama convention)
    lower_converted: Conversion     # C* in the table's convention
    certificate: str | None
    terms: list[BoundTerm]
    conversions: list[Conversion]
    perturbed: str | None = None    # SPEC §1: results for a tie-broken matrix say so

    def to_dict(self) -> dict[str, Any]:
        return {"matrix": self.matrix, "K": self.K, "C_star": self.lower,
                "C_star_converted": self.lower_converted.to_dict(),
                "certificate": self.certificate, "perturbed": self.perturbed,
                "bounds": [dict(t.to_dict(), converted=c.to_dict())
                           for t, c in zip(self.terms, self.conversions, strict=True)]}


@dataclass
class BoundTable:
    """Bounds of several matrices in one convention (see :func:`bound_table`)."""

    convention: str
    bounds: list[str]
    entries: list[BoundTableEntry]
    log_T: float | None = None
    T: float | None = None
    params: dict[str, Any] = field(default_factory=dict)

    # -- derived numbers ------------------------------------------------------
    def ratio(self, e: BoundTableEntry, k: int) -> float | None:
        """Converted bound / converted C*, for exact log T coefficients only (else None)."""
        if e.terms[k].kind != KIND_LOG_T or e.lower_converted.value <= 0.0:
            return None
        return e.conversions[k].value / e.lower_converted.value

    def at_T(self, e: BoundTableEntry, k: int) -> float | None:
        """Implied leading regret at T: coefficient × log T (or × log log T); None for O(·)."""
        if self.log_T is None:
            return None
        t = e.terms[k]
        if t.kind == KIND_LOG_T:
            return e.conversions[k].value * self.log_T
        if t.kind == KIND_LOGLOG_T:
            return e.conversions[k].value * math.log(self.log_T)
        return None

    # -- presentation ---------------------------------------------------------
    def _footnotes(self) -> tuple[dict[str, str], dict[str, str], dict[tuple[int, int], list[str]]]:
        """Footnotes: C*, one per bound, one per distinct failed assumption (cells)."""
        notes: dict[str, str] = {}
        marks = iter(string.ascii_lowercase + string.ascii_uppercase)
        cstar = next(marks)
        certs = sorted({str(e.certificate) for e in self.entries})
        notes[cstar] = (
            "C*: [K16] Theorem 2 lower bound for every strongly consistent algorithm "
            "(= CW-RMED's coefficient, Theorem 3); exact coefficient of log T; "
            f"{self._conversion_text('komiyama', [e.lower_converted for e in self.entries], False)}"
            f"; certificate: {', '.join(certs)}")
        bmark: dict[str, str] = {"C*": cstar}
        for k, name in enumerate(self.bounds):
            m = next(marks)
            bmark[name] = m
            t = self.entries[0].terms[k]
            c = self.entries[0].conversions[k]
            conv = (self._conversion_text(t.convention, [e.conversions[k] for e in
                                                         self.entries])
                    if c.factor is not None else c.note)
            params = ", ".join(f"{p} = {v}" for p, v in t.params.items() if v is not None)
            text = (f"{SHORT_LABELS.get(name, name)} ({t.algorithm}): {t.expression}; "
                    f"{t.source}; kind: {t.kind} (multiplies {t.multiplies}); {conv}")
            if params:
                text += f"; parameters: {params}"
            if t.notes:
                text += "; " + "; ".join(t.notes)
            notes[m] = text
        cell: dict[tuple[int, int], list[str]] = {}
        seen: dict[str, str] = {}
        for r, e in enumerate(self.entries):
            for k, t in enumerate(e.terms):
                for a in t.failed_assumptions:
                    text = f"{SHORT_LABELS.get(t.name, t.name)}: {a.name} fails: {a.detail}"
                    if text not in seen:
                        seen[text] = str(len(seen) + 1)
                        notes[seen[text]] = text
                    cell.setdefault((r, k), []).append(seen[text])
        return notes, bmark, cell

    def _conversion_text(self, native: str | None, convs: Sequence[Conversion],
                         upper: bool = True) -> str:
        """'native convention X' plus how it is shown in the table's convention."""
        head = f"native convention {native}"
        if len({c.factor for c in convs}) > 1:
            side = "largest" if upper else "smallest"
            return (f"{head}; factor to {self.convention} depends on the matrix (column "
                    f"'factor'): the {side} per-pair ratio, a valid "
                    f"{'upper' if upper else 'lower'} bound, not exact")
        c = convs[0]
        if c.factor == 1.0 and native == self.convention:
            return f"{head} (not converted)"
        return f"{head}; {c.note}"

    def _title(self) -> str:
        at = f", T = {self.T:g}" if self.T is not None else (
            f", log T = {self.log_T:g}" if self.log_T is not None else "")
        return f"Regret bounds vs the lower bound C* ({self.convention} convention{at})"

    def _general_notes(self) -> list[str]:
        out = ["Ratios to C* are given for exact coefficients of log T only; order terms "
               "(no constant) get neither a ratio nor a value at T."]
        out += [f"{e.matrix}: {e.perturbed}" for e in self.entries if e.perturbed]
        if self.log_T is not None:
            out.append("'at T' = coefficient x log T (x log log T for log log T terms); "
                       "additive constants and lower-order terms are not included.")
        return out

    def to_table(self, transpose: bool = False) -> Table:
        """The generic :class:`Table`: rows = matrices (default) or rows = bounds."""
        return self._transposed() if transpose else self._by_matrix()

    def _factor_varies(self, k: int) -> bool:
        fs = {e.conversions[k].factor for e in self.entries}
        return len(fs) > 1

    def _by_matrix(self) -> Table:
        notes, bmark, cellnotes = self._footnotes()
        cols = [Column("matrix", "matrix", align="l"), Column("K", "K"),
                Column("C*", "C*", unit="x log T", notes=(bmark["C*"],))]
        if self.convention == "binary":
            cols.append(Column("C*:factor", "C* factor"))
        for k, name in enumerate(self.bounds):
            t = self.entries[0].terms[k]
            c = self.entries[0].conversions[k]
            label = SHORT_LABELS.get(name, name)
            unit = _UNIT[t.kind].format(m=t.multiplies)
            if c.factor not in (None, 1.0) and not self._factor_varies(k):
                unit += f"; {t.convention} x{c.factor:g}"
            cols.append(Column(name, label, unit=unit, notes=(bmark[name],)))
            if c.factor is not None and self._factor_varies(k):
                cols.append(Column(f"{name}:factor", f"{label} factor"))
            if t.kind == KIND_LOG_T:
                cols.append(Column(f"{name}:ratio", f"{label} / C*", fmt=".4g"))
            if self.log_T is not None and t.kind != KIND_ORDER:
                cols.append(Column(f"{name}:T", f"{label} at T", unit="regret"))
        rows = []
        for r, e in enumerate(self.entries):
            row: dict[str, Any] = {"matrix": e.matrix, "K": e.K, "C*": e.lower_converted.value}
            if self.convention == "binary":
                row["C*:factor"] = e.lower_converted.factor
            for k, name in enumerate(self.bounds):
                marks = tuple(cellnotes.get((r, k), ()))
                v = e.conversions[k].value
                row[name] = Cell(v, notes=marks) if marks else v
                if f"{name}:factor" in {c.key for c in cols}:
                    row[f"{name}:factor"] = e.conversions[k].factor
                if e.terms[k].kind == KIND_LOG_T:
                    row[f"{name}:ratio"] = self.ratio(e, k)
                if self.log_T is not None and e.terms[k].kind != KIND_ORDER:
                    row[f"{name}:T"] = self.at_T(e, k)
            rows.append(row)
        return Table(self._title(), cols, rows, footnotes=notes, convention=self.convention,
                     notes=self._general_notes())

    def _transposed(self) -> Table:
        notes, bmark, cellnotes = self._footnotes()
        cols = [Column("bound", "bound", align="l"), Column("kind", "kind", align="l"),
                Column("native", "native convention", align="l"),
                Column("factor", "factor", align="l"), Column("source", "source", align="l")]
        for r, e in enumerate(self.entries):
            cols.append(Column(f"m{r}", e.matrix))
            cols.append(Column(f"m{r}:ratio", f"{e.matrix} / C*", fmt=".4g"))
            if self.log_T is not None:
                cols.append(Column(f"m{r}:T", f"{e.matrix} at T", unit="regret"))
        head: dict[str, Any] = {"bound": Cell("C*", notes=(bmark["C*"],)), "kind": KIND_LOG_T,
                                "native": "komiyama",
                                "factor": _factor_text([e.lower_converted for e in
                                                        self.entries]),
                                "source": "[K16] Theorem 2"}
        for r, e in enumerate(self.entries):
            head[f"m{r}"] = e.lower_converted.value
            head[f"m{r}:ratio"] = 1.0 if e.lower_converted.value > 0 else None
            if self.log_T is not None:
                head[f"m{r}:T"] = e.lower_converted.value * self.log_T
        rows = [head]
        for k, name in enumerate(self.bounds):
            t = self.entries[0].terms[k]
            row = {"bound": Cell(SHORT_LABELS.get(name, name), notes=(bmark[name],)),
                   "kind": f"{t.kind} (x {t.multiplies})", "native": t.convention or "none",
                   "factor": _factor_text([e.conversions[k] for e in self.entries]),
                   "source": t.source}
            for r, e in enumerate(self.entries):
                marks = tuple(cellnotes.get((r, k), ()))
                v = e.conversions[k].value
                row[f"m{r}"] = Cell(v, notes=marks) if marks else v
                row[f"m{r}:ratio"] = self.ratio(e, k)
                if self.log_T is not None:
                    row[f"m{r}:T"] = self.at_T(e, k)
            rows.append(row)
        return Table(self._title(), cols, rows, footnotes=notes, convention=self.convention,
                     notes=self._general_notes())

    def render(self, format: str = "md", transpose: bool = False) -> str:
        """Shorthand for ``render(self.to_table(transpose), format)``."""
        return render(self.to_table(transpose), format)

    def to_dict(self) -> dict[str, Any]:
        return {"convention": self.convention, "bounds": list(self.bounds),
                "log_T": self.log_T, "T": self.T, "params": dict(self.params),
                "entries": [e.to_dict() for e in self.entries]}

    def plot(self, path: str | None = None):
        """Log-scale chart of the bounds per matrix; see :func:`plot_bounds`."""
        return plot_bounds(self, path)


def _factor_text(convs: Sequence[Conversion]) -> str:
    fs = [c.factor for c in convs]
    if all(f is None for f in fs):
        return "not converted"
    vals = sorted({f for f in fs if f is not None})
    exact = all(c.exact for c in convs)
    text = f"x{vals[0]:g}" if len(vals) == 1 else f"x{vals[0]:.4g} .. x{vals[-1]:.4g}"
    return text + ("" if exact else " (not exact)")


def _log_T(log_T: float | None, T: float | None) -> tuple[float | None, float | None]:
    if log_T is not None and T is not None:
        raise DuelboundError("give either log_T or T, not both")
    if T is not None:
        T = float(T)
        if not (T > math.e and math.isfinite(T)):
            raise DuelboundError(f"T must be a finite number > e (so that log log T > 0), "
                                 f"got {T!r}")
        return math.log(T), T
    if log_T is not None:
        log_T = float(log_T)
        if not (log_T > 1.0 and math.isfinite(log_T)):
            raise DuelboundError(f"log_T must be a finite number > 1, got {log_T!r}")
    return log_T, None


def bound_table(matrices: Iterable[PreferenceMatrix], bounds: Sequence[str] | None = None,
                convention: str = "komiyama", log_T: float | None = None,
                T: float | None = None, params: dict[str, Any] | None = None) -> BoundTable:
    """Evaluate ``bounds`` on every matrix and restate them in ``convention``.

    Parameters
    ----------
    matrices : iterable of PreferenceMatrix
        Rows of the table (unnamed matrices are called ``matrix1``, ``matrix2``, …).
    bounds : sequence of str, optional
        Names from :data:`~duelbound.solvers.bound_terms.BOUNDS`; default
        :data:`~duelbound.solvers.bound_terms.DEFAULT_BOUNDS`.
    convention : {"komiyama", "zoghi", "binary"}
    log_T, T : float, optional
        Horizon for the implied regret (give at most one; T > e).
    params : dict, optional
        Shared bound parameters (``alpha``, ``epsilon``, ``beta``, ``delta``).

    Returns
    -------
    BoundTable

    Raises
    ------
    UnknownNameError
        Unknown bound or convention.
    DuelboundError
        No matrices, bad horizon or parameters.

    Notes
    -----
    C* comes from :func:`duelbound.solvers.lower_bound` (certified for small K;
    the certificate status is in the C* footnote).
    """
    check_convention(convention)
    lt, T = _log_T(log_T, T)
    mats = list(matrices)
    if not mats:
        raise DuelboundError("bound_table needs at least one matrix")
    names = list(DEFAULT_BOUNDS if bounds is None else bounds)
    if not names:
        raise DuelboundError("bound_table needs at least one bound")
    entries = []
    for idx, M in enumerate(mats):
        terms = upper_bounds(M, names, params)
        lb = _lower(M)
        cert = lb.certificate.get("status") if isinstance(lb.certificate, dict) else None
        entries.append(BoundTableEntry(
            matrix=M.name or f"matrix{idx + 1}", K=M.K, lower=float(lb.value),
            lower_converted=_convert(float(lb.value), M, "komiyama", convention, upper=False),
            certificate=cert, terms=terms,
            conversions=[t.converted(M, convention) for t in terms],
            perturbed=(f"exact ties at {list(M.broken_ties)} broken by epsilon = "
                       f"{M.tie_epsilon:g}; every number is for the perturbed matrix"
                       if M.perturbed else None)))
    return BoundTable(convention=convention, bounds=names, entries=entries, log_T=lt, T=T,
                      params=dict(params or {}))


def plot_bounds(bt: BoundTable, path: str | None = None):
    """Grouped log-scale bars: one group per matrix, one bar per log T bound, C* as a line.

    Exact coefficients are solid, order terms (no constant) hatched and labelled
    as such; log log T and log(1/δ) terms multiply other functions and are left
    out (the legend title says so).  Returns the matplotlib Figure; saves to
    ``path`` (.png / .svg / .pdf) when given.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np

    from duelbound.theory.draw import save_figure

    ks = [k for k, _ in enumerate(bt.bounds)
          if bt.entries[0].terms[k].multiplies == "log T"]
    n, m = len(bt.entries), max(len(ks), 1)
    width = 0.8 / m
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 + n * (0.35 * m + 0.6)), 4.5))
    cmap = plt.get_cmap("tab20")
    x = np.arange(n)
    for slot, k in enumerate(ks):
        t0 = bt.entries[0].terms[k]
        vals = [e.conversions[k].value for e in bt.entries]
        order = t0.kind == KIND_ORDER
        label = SHORT_LABELS.get(bt.bounds[k], bt.bounds[k]) + (
            " [order term, no constant]" if order else "")
        ax.bar(x - 0.4 + (slot + 0.5) * width, vals, width, label=label, color=cmap(slot % 20),
               hatch="//" if order else None, edgecolor="black", linewidth=0.4)
    for r, e in enumerate(bt.entries):
        ax.hlines(e.lower_converted.value, r - 0.45, r + 0.45, colors="black",
                  linestyles="--", label="C* (lower bound)" if r == 0 else None)
    ax.set_yscale("log")
    shown = [e.conversions[k].value for e in bt.entries for k in ks]
    shown += [e.lower_converted.value for e in bt.entries]
    positive = [v for v in shown if v > 0 and math.isfinite(v)]
    if positive:  # leave room under the smallest bar (log-scale bars start at the bottom)
        ax.set_ylim(bottom=min(positive) / 3)
    ax.set_xticks(x, [e.matrix for e in bt.entries])
    ax.set_ylabel(f"coefficient of log T ({bt.convention} convention)")
    ax.set_title("Regret bounds per matrix (log scale)")
    ax.legend(fontsize=7, ncol=2, title="log T terms only", title_fontsize=7,
              loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if path:
        save_figure(fig, path)
    return fig
