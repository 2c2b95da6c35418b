"""Bound-comparison tables: every algorithm's guarantee next to the optimum C*.

:func:`bound_table` evaluates the bounds of :mod:`.bound_terms` on several
matrices, restates them in one regret convention (the factor is shown), and
divides the exact log T coefficients by C* ([K16] Theorem 2).  The result is a
:class:`BoundTable`; :meth:`BoundTable.to_table` gives a generic
:class:`~duelbound.render.Table` (Markdown / LaTeX / CSV / JSON),
:meth:`BoundTable.to_pandas` a tidy frame and :meth:`BoundTable.plot` a
log-scale chart, all from the same numbers.

Decisions (docs/bounds.md):

* ratios to C* and the implied regret at T are given for exact coefficients
  only; for order terms (no constant) both are omitted (shown as "—"), because
  the number inside O(·) has no scale to compare;
* a log log T coefficient gets no ratio (it multiplies a different function of
  T) but does get its implied value at T (coefficient × log log T);
* in the ``binary`` convention the factor depends on the matrix: upper bounds
  are multiplied by the largest per-pair ratio, C* by the smallest (both stay
  valid bounds, labelled not exact), and **no ratio is shown**: the two sides are
  loosened by different factors, so their quotient would not be the ratio of
  the bounds (which is the same in the komiyama and zoghi conventions).

Examples
--------
>>> from duelbound.theory import datasets
>>> bt = bound_table([datasets.load("cyclic")], bounds=["ccb"], log_T=10.0)
>>> round(bt.entries[0].conversions[0].value, 6), bt.entries[0].conversions[0].factor
(800.0, 0.5)
>>> bt
<BoundTable komiyama convention: 1 matrix x 1 bound, log T = 10>
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DuelboundError
from ..frames import html_table, markdown_table, records_to_frame
from ..plots import new_figure, save_figure
from ..render import Cell, Column, LatexStyle, Markup, Table, latex_escape, render
from ..theory.matrix import PreferenceMatrix
from ..theory.regret import check_convention, convert
from .bound_terms import (
    DEFAULT_BOUNDS,
    KIND_LOG_T,
    KIND_LOGLOG_T,
    KIND_ORDER,
    BoundTerm,
    Conversion,
    bound_names,
    upper_bounds,
)
from .shared_solves import cached_lower_bound

__all__ = ["bound_table", "BoundTable", "BoundTableEntry", "SHORT_LABELS", "LABELS",
           "plot_bounds", "resolve_bounds"]

#: Column labels of the bounds in tables and plots.
SHORT_LABELS = {
    "cw-rmed": "CW-RMED", "ecw-rmed": "ECW-RMED C^E*", "ecw-rmed-11": "ECW-RMED (11)",
    "ecw-rmed-12": "ECW-RMED (12)", "ccb": "CCB Th.3", "ccb-expected": "CCB (1)",
    "scb": "SCB Th.5", "scb-relaxed": "SCB Th.5 relaxed", "scb-lemma6": "SCB L.6",
    "scb-lemma6-relaxed": "SCB L.6 relaxed", "d-ts-prop1": "D-TS Prop.1",
    "d-ts-th1": "D-TS Th.1", "d-ts-th1-loglog": "D-TS Th.1 loglog", "savage": "SAVAGE",
}
#: The same labels typeset for LaTeX.
LABELS = {name: Markup(text, _tex) for (name, text), _tex in zip(SHORT_LABELS.items(), (
    "CW-RMED", r"ECW-RMED $C^{E*}$", "ECW-RMED (11)", "ECW-RMED (12)", "CCB Th.~3",
    "CCB (1)", "SCB Th.~5", "SCB Th.~5 relaxed", "SCB L.~6", "SCB L.~6 relaxed",
    "D-TS Prop.~1", "D-TS Th.~1", r"D-TS Th.~1, $\log\log T$", "SAVAGE"), strict=True)}

C_STAR = Markup("C*", "$C^{*}$")
_PER_CSTAR = Markup("/ C*", "$/C^{*}$")
_AT_T = Markup("at T", "at $T$")
_UNIT = {
    "log T": Markup("x log T", r"$\times\log T$"),
    "log log T": Markup("x log log T", r"$\times\log\log T$"),
    "log(1/δ)": Markup("x log(1/δ)", r"$\times\log(1/\delta)$"),
}
_ORDER_UNIT = {
    "log T": Markup("O(.) x log T, no constant", r"$O(\cdot\log T)$"),
    "log(1/δ)": Markup("O(.) x log(1/δ), no constant", r"$O(\cdot\log(1/\delta))$"),
}


def _label(name: str) -> Markup:
    return LABELS.get(name, Markup(name, name))


def _unit(t: BoundTerm) -> Markup:
    table = _ORDER_UNIT if t.kind == KIND_ORDER else _UNIT
    return table.get(t.multiplies, Markup(f"x {t.multiplies}", f"x {t.multiplies}"))


def resolve_bounds(spec: str | Sequence[str] | None) -> list[str]:
    """Bound names from a list or a comma-separated string; ``"all"`` is every bound,
    ``"default"`` (or None) the default set."""
    if spec is None:
        return list(DEFAULT_BOUNDS)
    names = ([n.strip() for n in spec.split(",") if n.strip()] if isinstance(spec, str)
             else list(spec))
    out: list[str] = []
    for n in names:
        out += (bound_names() if n == "all" else list(DEFAULT_BOUNDS) if n == "default"
                else [n])
    return list(dict.fromkeys(out))


def _note_marks():
    """Footnote marks a, b, ..., z, A, ..., Z, aa, ab, ...: letters only, so that a mark
    after a number is never read as one of its digits or exponents."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    yield from letters
    for first in string.ascii_lowercase:
        for second in string.ascii_lowercase:
            yield first + second


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
    perturbed: str | None = None    # docs/math.md §1: results for a tie-broken matrix say so
    winners: list[str] = field(default_factory=list)  # arms attaining C* (names if given)

    def to_dict(self) -> dict[str, Any]:
        return {"matrix": self.matrix, "K": self.K, "C_star": self.lower,
                "C_star_converted": self.lower_converted.to_dict(),
                "certificate": self.certificate, "perturbed": self.perturbed,
                "winners": list(self.winners),
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
        """Converted bound / converted C*, for exact log T coefficients only (else None).

        None in the ``binary`` convention when a conversion is not exact: C* and
        the bound are loosened by different per-pair factors there, so their
        quotient is not the ratio of the two bounds.
        """
        c, lo = e.conversions[k], e.lower_converted
        if e.terms[k].kind != KIND_LOG_T or lo.value <= 0.0:
            return None
        if not (c.exact and lo.exact):
            return None
        return c.value / lo.value

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

    def _ratios_refused(self) -> bool:
        return any(not (c.exact and e.lower_converted.exact)
                   for e in self.entries for t, c in zip(e.terms, e.conversions, strict=True)
                   if t.kind == KIND_LOG_T)

    # -- footnotes --------------------------------------------------------------
    def _footnotes(self, long: bool = False
                   ) -> tuple[dict[str, str], dict[str, str], dict[tuple[int, int], list[str]]]:
        """Footnotes: C*, one per bound, one per distinct failed assumption (cells).

        Short (default): what the number is, its source, kind and convention.
        ``long`` adds the expression, parameters and readings of the paper.
        """
        notes: dict[str, str] = {}
        marks = _note_marks()  # letters, never digits: "10^7 1" would read as 10^71
        cstar = next(marks)
        certs = sorted({str(e.certificate) for e in self.entries})
        cconv = self._conversion_text("komiyama", [e.lower_converted for e in self.entries],
                                      upper=False)
        notes[cstar] = (
            "C*: lower bound on the regret of every strongly consistent algorithm, [K16] "
            "Theorem 2 (CW-RMED attains it, Theorem 3)"
            + (f"; exact coefficient of log T; {cconv}" if long or "shown" in cconv else "")
            + f"; certified: {', '.join(certs)}.")
        bmark: dict[str, str] = {"C*": cstar}
        for k, name in enumerate(self.bounds):
            m = next(marks)
            bmark[name] = m
            t = self.entries[0].terms[k]
            c = self.entries[0].conversions[k]
            conv = (self._conversion_text(t.convention, [e.conversions[k] for e in
                                                         self.entries])
                    if c.factor is not None else _unconverted_text(t))
            text = f"{SHORT_LABELS.get(name, name)}: {t.algorithm}, {t.source}"
            if long or t.kind != KIND_LOG_T:
                text += f"; {t.kind}"
                if t.multiplies not in ("log T", *t.kind.split(" of ")[1:]):
                    text += f" (multiplies {t.multiplies})"
            converted = t.kind != KIND_ORDER and conv != f"native convention {self.convention}"
            duels = t.convention is None and t.multiplies != "log T"  # a sample complexity
            if long or converted or duels:
                text += f"; {conv}"
            if long:
                params = ", ".join(f"{p} = {v}" for p, v in t.params.items() if v is not None)
                text += f"; expression {t.expression}"
                if params:
                    text += f"; parameters: {params}"
                if t.notes:
                    text += "; " + "; ".join(t.notes)
            notes[m] = text + "."
        cell: dict[tuple[int, int], list[str]] = {}
        seen: dict[str, str] = {}
        for r, e in enumerate(self.entries):
            for k, t in enumerate(e.terms):
                for a in t.failed_assumptions:
                    text = f"{SHORT_LABELS.get(t.name, t.name)}: {a.name} fails: {a.detail}"
                    if text not in seen:
                        seen[text] = next(marks)
                        notes[seen[text]] = text
                    cell.setdefault((r, k), []).append(seen[text])
        return notes, bmark, cell

    def _conversion_text(self, native: str | None, convs: Sequence[Conversion],
                         upper: bool = True) -> str:
        """'native convention X' plus how it is shown in the table's convention."""
        head = f"native convention {native}"
        if len({c.factor for c in convs}) > 1 or not all(c.exact for c in convs):
            side = "largest" if upper else "smallest"
            return (f"{head}; shown x the {side} per-pair ratio of the {self.convention} to "
                    f"the {native} regret (column 'factor'): a valid "
                    f"{'upper' if upper else 'lower'} bound, not exact")
        c = convs[0]
        if c.factor == 1.0 and native == self.convention:
            return head
        return f"{head}, shown {c.note}"

    def _title(self) -> Markup:
        at, at_tex = "", ""
        if self.T is not None:
            at, at_tex = f", T = {self.T:g}", f", $T = {_tex_num(self.T)}$"
        elif self.log_T is not None:
            at, at_tex = f", log T = {self.log_T:g}", rf", $\log T = {self.log_T:g}$"
        return Markup(f"Regret bounds vs the lower bound C* ({self.convention} convention{at})",
                      rf"Regret bounds and the lower bound $C^{{*}}$ ({self.convention} "
                      f"convention{at_tex})")

    def _general_notes(self) -> list[str]:
        out = [f"Unless its footnote says otherwise, a value is an exact coefficient of log T, "
               f"stated in its native convention {self.convention}. Ratios to C* are given for "
               "exact coefficients only; order terms (no constant) get neither a ratio nor a "
               "value at T."]
        if self._ratios_refused():
            out.append(f"No ratios in the {self.convention} convention: C* and the bounds are "
                       "converted by different per-pair factors, so their quotient is not "
                       "the ratio of the bounds (the komiyama table shows it).")
        out += [f"{e.matrix}: {e.perturbed}" for e in self.entries if e.perturbed]
        if self.log_T is not None:
            out.append("'at T' = coefficient x log T (x log log T for log log T terms); "
                       "additive constants and lower-order terms are not included.")
        return out

    # -- tables -------------------------------------------------------------------
    def to_table(self, transpose: bool = False, long: bool = False) -> Table:
        """The generic :class:`Table`: rows = matrices (default) or rows = bounds.

        ``long`` adds the expression, parameters and readings to the footnotes
        and, transposed, the kind / native convention / factor / source columns.
        """
        return self._transposed(long) if transpose else self._by_matrix(long)

    def _factor_varies(self, k: int) -> bool:
        fs = {e.conversions[k].factor for e in self.entries}
        return len(fs) > 1 or not all(e.conversions[k].exact for e in self.entries)

    def _by_matrix(self, long: bool) -> Table:
        notes, bmark, cellnotes = self._footnotes(long)
        cols = [Column("matrix", "matrix", align="l"), Column("K", "K"),
                Column("winner", "winner", align="l"),
                Column("C*", C_STAR, unit=_UNIT["log T"], notes=(bmark["C*"],))]
        if self.convention == "binary":
            cols.append(Column("C*:factor", Markup("C* factor", "$C^{*}$ factor")))
        for k, name in enumerate(self.bounds):
            t = self.entries[0].terms[k]
            c = self.entries[0].conversions[k]
            lab = _label(name)
            unit = _unit(t)
            plain_unit = unit.plain
            if c.factor not in (None, 1.0) and not self._factor_varies(k):
                plain_unit += f"; {t.convention} x{c.factor:g}"
            cols.append(Column(name, lab.plain, unit=plain_unit, notes=(bmark[name],),
                               group=lab.latex and Markup(lab.plain, lab.latex), sub=unit))
            if c.factor is not None and self._factor_varies(k):
                cols.append(Column(f"{name}:factor", f"{lab.plain} factor", group=lab,
                                   sub="factor"))
            if t.kind == KIND_LOG_T:
                cols.append(Column(f"{name}:ratio", f"{lab.plain} / C*", fmt=".4g",
                                   group=lab, sub=_PER_CSTAR))
            if self.log_T is not None and t.kind != KIND_ORDER:
                cols.append(Column(f"{name}:T", f"{lab.plain} at T", unit="regret",
                                   group=lab, sub=_AT_T))
        keys = {c.key for c in cols}
        rows = []
        for r, e in enumerate(self.entries):
            row: dict[str, Any] = {"matrix": e.matrix, "K": e.K, "winner": ", ".join(e.winners),
                                   "C*": e.lower_converted.value}
            if self.convention == "binary":
                row["C*:factor"] = e.lower_converted.factor
            for k, name in enumerate(self.bounds):
                marks = tuple(cellnotes.get((r, k), ()))
                v = e.conversions[k].value
                row[name] = Cell(v, notes=marks) if marks else v
                if f"{name}:factor" in keys:
                    row[f"{name}:factor"] = e.conversions[k].factor
                if f"{name}:ratio" in keys:
                    row[f"{name}:ratio"] = self.ratio(e, k)
                if f"{name}:T" in keys:
                    row[f"{name}:T"] = self.at_T(e, k)
            rows.append(row)
        return Table(self._title(), cols, rows, footnotes=notes, convention=self.convention,
                     notes=[*self._general_notes(),
                            "winner: the Copeland winner(s) whose C*_i1 is C*."],
                     index=("matrix",))

    def _transposed(self, long: bool) -> Table:
        notes, bmark, cellnotes = self._footnotes(long)
        cols = [Column("bound", "bound", align="l")]
        if long:
            cols += [Column("kind", "kind", align="l", width=62.0),
                     Column("native", "native convention", align="l"),
                     Column("factor", "factor", align="l", width=40.0),
                     Column("source", "source", align="l", width=110.0)]
        for r, e in enumerate(self.entries):
            group = Markup(e.matrix, latex_escape(e.matrix))  # a name, not notation
            cols.append(Column(f"m{r}", group, group=group, sub="value"))
            cols.append(Column(f"m{r}:ratio", f"{e.matrix} / C*", fmt=".4g", group=group,
                               sub=_PER_CSTAR))
            if self.log_T is not None:
                cols.append(Column(f"m{r}:T", f"{e.matrix} at T", unit="regret",
                                   group=group, sub=_AT_T))
        head: dict[str, Any] = {"bound": Cell(None, notes=(bmark["C*"],), text=C_STAR)}
        if long:
            head.update(_meta(KIND_LOG_T, "log T", "komiyama", [e.lower_converted for e in
                                                                 self.entries],
                              "[K16] Theorem 2"))
        for r, e in enumerate(self.entries):
            head[f"m{r}"] = e.lower_converted.value
            head[f"m{r}:ratio"] = 1.0 if e.lower_converted.value > 0 else None
            if self.log_T is not None:
                head[f"m{r}:T"] = e.lower_converted.value * self.log_T
        rows = [head]
        for k, name in enumerate(self.bounds):
            t = self.entries[0].terms[k]
            lab = _label(name)
            if t.kind == KIND_ORDER:  # the row's kind is visible without the footnote
                lab = Markup(f"{lab.plain}, O(.)", rf"{lab.latex}, $O(\cdot)$")
            row: dict[str, Any] = {"bound": Cell(None, notes=(bmark[name],), text=lab)}
            if long:
                row.update(_meta(t.kind, t.multiplies, t.convention,
                                 [e.conversions[k] for e in self.entries], t.source))
            for r, e in enumerate(self.entries):
                marks = tuple(cellnotes.get((r, k), ()))
                v = e.conversions[k].value
                row[f"m{r}"] = Cell(v, notes=marks) if marks else v
                row[f"m{r}:ratio"] = self.ratio(e, k)
                if self.log_T is not None:
                    row[f"m{r}:T"] = self.at_T(e, k)
            rows.append(row)
        return Table(self._title(), cols, rows, footnotes=notes, convention=self.convention,
                     notes=self._general_notes(), index=("bound",))

    def render(self, format: str = "md", transpose: bool = False, long: bool = False,
               latex: LatexStyle | None = None) -> str:
        """Shorthand for ``render(self.to_table(transpose, long), format, latex)``."""
        return render(self.to_table(transpose, long), format, latex)

    def to_dict(self) -> dict[str, Any]:
        return {"convention": self.convention, "bounds": list(self.bounds),
                "log_T": self.log_T, "T": self.T, "params": dict(self.params),
                "entries": [e.to_dict() for e in self.entries]}

    # -- pandas and notebooks ---------------------------------------------------------
    def records(self) -> list[dict[str, Any]]:
        """Tidy records: one per matrix × bound (C* first), every number in one convention."""
        out = []
        for e in self.entries:
            base = {"matrix": e.matrix, "K": e.K, "convention": self.convention}
            out.append({**base, "bound": "C*", "label": "C*", "algorithm": "any (lower bound)",
                        "kind": KIND_LOG_T, "multiplies": "log T", "native_convention":
                        "komiyama", "native_value": e.lower, "value": e.lower_converted.value,
                        "factor": e.lower_converted.factor,
                        "exact_conversion": e.lower_converted.exact,
                        "ratio_to_c_star": 1.0 if e.lower_converted.exact else None,
                        "at_T": (e.lower_converted.value * self.log_T
                                 if self.log_T is not None else None),
                        "source": "[K16] Theorem 2", "assumptions_hold": True})
            for k, (t, c) in enumerate(zip(e.terms, e.conversions, strict=True)):
                out.append({**base, "bound": t.name, "label": SHORT_LABELS.get(t.name, t.name),
                            "algorithm": t.algorithm, "kind": t.kind,
                            "multiplies": t.multiplies, "native_convention": t.convention,
                            "native_value": t.value, "value": c.value, "factor": c.factor,
                            "exact_conversion": c.exact, "ratio_to_c_star": self.ratio(e, k),
                            "at_T": self.at_T(e, k), "source": t.source,
                            "assumptions_hold": t.assumptions_hold})
        return out

    def to_pandas(self) -> Any:
        """Tidy :class:`pandas.DataFrame`, one row per matrix × bound (``duelbound[pandas]``)."""
        return records_to_frame(self.records())

    _SHOWN = ("matrix", "label", "value", "ratio_to_c_star", "kind")

    def _repr_html_(self) -> str:
        return html_table(self.records(), self._SHOWN, max_rows=30, caption=self._title().plain)

    def _repr_markdown_(self) -> str:
        return markdown_table(self.records(), self._SHOWN, max_rows=30,
                              caption=self._title().plain)

    def __repr__(self) -> str:
        n, b = len(self.entries), len(self.bounds)
        at = (f", T = {self.T:g}" if self.T is not None else
              f", log T = {self.log_T:g}" if self.log_T is not None else "")
        return (f"<BoundTable {self.convention} convention: {n} matri{'x' if n == 1 else 'ces'}"
                f" x {b} bound{'' if b == 1 else 's'}{at}>")

    def plot(self, path: str | None = None):
        """Log-scale chart of the bounds per matrix; see :func:`plot_bounds`."""
        return plot_bounds(self, path)


def _tex_num(x: float) -> str:
    mant, _, exp = f"{x:g}".partition("e")
    if not exp:
        return mant
    e = int(exp)
    return f"10^{{{e}}}" if mant == "1" else rf"{mant}\times 10^{{{e}}}"


def _unconverted_text(t: BoundTerm) -> str:
    if t.convention is None:
        return ("a sample complexity (number of duels): no regret convention, not converted"
                if t.multiplies != "log T" else "no regret convention (constant-free)")
    return f"native convention {t.convention}, not converted (no constant)"


_SHORT_KIND = {KIND_LOG_T: "exact, x {m}", KIND_LOGLOG_T: "exact, x {m}",
               KIND_ORDER: "O(.), x {m}, no constant"}


def _meta(kind: str, multiplies: str, native: str | None, convs: Sequence[Conversion],
          source: str) -> dict[str, Cell]:
    """The kind / native / factor / source cells of a transposed long table (labels, so
    LaTeX typesets and cites them)."""
    return {"kind": Cell(None, text=_SHORT_KIND[kind].format(m=multiplies)),
            "native": Cell(None, text=native or "none"),
            "factor": Cell(None, text=_factor_text(convs)), "source": Cell(None, text=source)}


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


def bound_table(matrices: Iterable[PreferenceMatrix],
                bounds: str | Sequence[str] | None = None,
                convention: str = "komiyama", log_T: float | None = None,
                T: float | None = None, params: dict[str, Any] | None = None) -> BoundTable:
    """Evaluate ``bounds`` on every matrix and restate them in ``convention``.

    Parameters
    ----------
    matrices : iterable of PreferenceMatrix
        Rows of the table (unnamed matrices are called ``matrix1``, ``matrix2``, …).
    bounds : str or sequence of str, optional
        Names from :data:`~duelbound.solvers.bound_terms.BOUNDS`, ``"all"``, or a
        comma-separated string; default
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
    C* comes from :func:`duelbound.solvers.cstar` (certified for small K;
    the certificate status is in the C* footnote).
    """
    check_convention(convention)
    lt, T = _log_T(log_T, T)
    mats = list(matrices)
    if not mats:
        raise DuelboundError("bound_table needs at least one matrix")
    names = resolve_bounds(bounds)
    if not names:
        raise DuelboundError("bound_table needs at least one bound")
    entries = []
    for idx, M in enumerate(mats):
        lb = cached_lower_bound(M)  # first: C^E*'s term reuses its certificate's brackets
        terms = upper_bounds(M, names, params)
        cert = lb.certificate.get("status") if isinstance(lb.certificate, dict) else None
        entries.append(BoundTableEntry(
            matrix=M.name or f"matrix{idx + 1}", K=M.K, lower=float(lb.value),
            lower_converted=convert(float(lb.value), "komiyama", convention, M, upper=False),
            certificate=cert, terms=terms,
            conversions=[t.converted(M, convention) for t in terms],
            perturbed=(f"exact ties at {list(M.broken_ties)} broken by epsilon = "
                       f"{M.tie_epsilon:g}; every number is for the perturbed matrix, and "
                       "those that depend on the broken pairs' gaps are artefacts of epsilon, "
                       "not estimates (Delta_min = epsilon; the 1/Delta^2 terms, and C* when "
                       "it needs those pairs, grow like 1/epsilon^2)" if M.perturbed else None),
            winners=[M.label(i) for i in lb.winners]))
    return BoundTable(convention=convention, bounds=names, entries=entries, log_T=lt, T=T,
                      params=dict(params or {}))


def plot_bounds(bt: BoundTable, path: str | None = None):
    """Grouped log-scale bars: one group per matrix, one bar per log T bound, C* as a line.

    Exact coefficients are solid, order terms (no constant) hatched and labelled
    as such; log log T and log(1/δ) terms multiply other functions and are left
    out (the legend title says so).  Returns the matplotlib Figure; saves to
    ``path`` (.png / .svg / .pdf) when given.
    """
    from matplotlib import colormaps  # matplotlib: only when plotting

    ks = [k for k, _ in enumerate(bt.bounds)
          if bt.entries[0].terms[k].multiplies == "log T"]
    n, m = len(bt.entries), max(len(ks), 1)
    width = 0.8 / m
    # no pyplot: the figure is not kept in a global registry, the backend is not switched
    fig, axes = new_figure(max(6.0, 1.2 + n * (0.35 * m + 0.6)), 4.5, constrained=False)
    ax = axes[0, 0]
    cmap = colormaps["tab20"]
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
                  linestyles="--", label="C* (lower bound)" if r == 0 else "_nolegend_")
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
