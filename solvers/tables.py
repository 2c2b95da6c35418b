"""Generic result tables: one data model, four renderers.

A :class:`Table` holds a title, typed :class:`Column` descriptions (label, unit,
number format, footnotes), rows of plain values, footnotes and the regret
convention the numbers are stated in.  :func:`render` turns the *same* table into
Markdown, LaTeX (booktabs, footnotes under the tabular), CSV (metadata in ``#``
comment lines) or JSON, so every output format carries the same labels.

Used by the bound tables (:mod:`duelbound.solvers.comparison`) and by the sweep
reports.

Examples
--------
>>> from duelbound.solvers.tables import Column, Table, render
>>> t = Table("demo", [Column("name", "matrix", align="l"),
...                     Column("c", "C*", unit="x log T", notes=("a",))],
...           rows=[{"name": "cyclic", "c": 27.5526}],
...           footnotes={"a": "[K16] Theorem 2"}, convention="komiyama")
>>> print(render(t, "md"))
**demo**
<BLANKLINE>
| matrix | C* (x log T) [a] |
|:---|---:|
| cyclic | 27.5526 |
<BLANKLINE>
Regret convention: komiyama.
<BLANKLINE>
[a] [K16] Theorem 2
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from duelbound.theory.errors import DuelboundError, UnknownNameError

__all__ = ["Column", "Cell", "Table", "FORMATS", "render", "concat", "format_value",
           "latex_escape"]

#: Output formats understood by :func:`render`.
FORMATS = ("md", "latex", "csv", "json")

_MISSING = "—"


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Table`.

    Parameters
    ----------
    key : str
        Key of the value in each row dict.
    label : str
        Header text.
    unit : str, optional
        Unit or multiplier shown after the label, e.g. ``"x log T"``.
    notes : tuple of str
        Footnote markers (keys of :attr:`Table.footnotes`) attached to the header.
    fmt : str
        ``format`` spec for float values (``".6g"`` by default).
    align : {"l", "r"}
        Alignment in Markdown and LaTeX.
    """

    key: str
    label: str
    unit: str | None = None
    notes: tuple[str, ...] = ()
    fmt: str = ".6g"
    align: str = "r"

    def header(self, marker=lambda m: f"[{m}]") -> str:
        """Label, unit in parentheses, then the footnote markers."""
        text = self.label + (f" ({self.unit})" if self.unit else "")
        return text + "".join(" " + marker(m) for m in self.notes)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "unit": self.unit,
                "notes": list(self.notes), "fmt": self.fmt, "align": self.align}


@dataclass(frozen=True)
class Cell:
    """A cell value with footnote markers, or with a display text that replaces it.

    ``Cell(None, text="n/a")`` shows ``n/a``; ``Cell(3.2, notes=("b",))`` shows
    ``3.2 [b]``.  JSON keeps ``value`` and ``notes`` apart.
    """

    value: Any
    notes: tuple[str, ...] = ()
    text: str | None = None


@dataclass
class Table:
    """A titled table of rows (dicts keyed by :attr:`Column.key`).

    Parameters
    ----------
    title : str
    columns : list of Column
    rows : list of dict
        Values may be ``None`` (shown as a dash), numbers, strings, booleans or
        :class:`Cell`.  Keys missing from a row count as ``None``.
    footnotes : dict of str to str
        Marker -> text, in display order.
    convention : str, optional
        Regret convention of the numbers (printed with the table).
    notes : list of str
        Unmarked notes printed after the table.
    """

    title: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    footnotes: dict[str, str] = field(default_factory=dict)
    convention: str | None = None
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        keys = [c.key for c in self.columns]
        if len(set(keys)) != len(keys):
            raise DuelboundError(f"table {self.title!r}: duplicate column keys {keys}")
        used = {m for c in self.columns for m in c.notes}
        for row in self.rows:
            extra = set(row) - set(keys)
            if extra:
                raise DuelboundError(f"table {self.title!r}: row keys {sorted(extra)} "
                                     "have no column")
            used |= {m for v in row.values() if isinstance(v, Cell) for m in v.notes}
        missing = used - set(self.footnotes)
        if missing:
            raise DuelboundError(f"table {self.title!r}: undefined footnotes {sorted(missing)}")

    def preamble(self) -> list[str]:
        """The convention line followed by the unmarked notes."""
        lines = [f"Regret convention: {self.convention}."] if self.convention else []
        return lines + list(self.notes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: cells become plain values, cell footnotes are listed apart."""
        rows, cell_notes = [], []
        for r, row in enumerate(self.rows):
            out = {}
            for c in self.columns:
                v = row.get(c.key)
                if isinstance(v, Cell):
                    if v.notes:
                        cell_notes.append({"row": r, "column": c.key, "notes": list(v.notes)})
                    v = v.value if v.text is None or v.value is not None else v.text
                out[c.key] = _json_value(v)
            rows.append(out)
        return {"title": self.title, "convention": self.convention, "notes": list(self.notes),
                "columns": [c.to_dict() for c in self.columns], "rows": rows,
                "cell_notes": cell_notes, "footnotes": dict(self.footnotes)}


def _json_value(v: Any) -> Any:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):  # numpy scalar
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)  # JSON has no inf/nan
    return v


def format_value(v: Any, fmt: str = ".6g") -> str:
    """Display text of a plain value: dash for None, ``fmt`` for floats."""
    if v is None:
        return _MISSING
    if isinstance(v, bool):
        return "yes" if v else "no"
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return format(v, fmt)
    return str(v)


def _cell_text(v: Any, col: Column, marker) -> str:
    if isinstance(v, Cell):
        base = v.text if v.text is not None else format_value(v.value, col.fmt)
        return base + "".join(" " + marker(m) for m in v.notes)
    return format_value(v, col.fmt)


# -- Markdown -------------------------------------------------------------------

def _md_escape(s: str) -> str:
    return s.replace("|", r"\|")


def _render_md(t: Table) -> str:
    head = "| " + " | ".join(_md_escape(c.header()) for c in t.columns) + " |"
    rule = "|" + "|".join(":---" if c.align == "l" else "---:" for c in t.columns) + "|"
    body = ["| " + " | ".join(_md_escape(_cell_text(row.get(c.key), c, _bracket))
                              for c in t.columns) + " |" for row in t.rows]
    out = [f"**{t.title}**", "", head, rule, *body]
    pre = t.preamble()
    if pre:
        out += ["", *pre]
    if t.footnotes:
        out += [""] + [f"[{m}] {_md_escape(text)}" for m, text in t.footnotes.items()]
    return "\n".join(out)


def _bracket(m: str) -> str:
    return f"[{m}]"


# -- CSV ------------------------------------------------------------------------

def _render_csv(t: Table) -> str:
    buf = io.StringIO()
    buf.write(f"# {t.title}\n")
    for line in t.preamble():
        buf.write(f"# {line}\n")
    for m, text in t.footnotes.items():
        buf.write(f"# [{m}] {text}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.header() for c in t.columns])
    for row in t.rows:
        w.writerow([_csv_cell(row.get(c.key), c) for c in t.columns])
    return buf.getvalue().rstrip("\n")


def _csv_cell(v: Any, col: Column) -> str:
    # CSV keeps full precision: it is read back by programs, not people.
    inner = v.value if isinstance(v, Cell) else v
    if isinstance(v, Cell) and v.text is not None and inner is None:
        text = v.text
    elif inner is None:
        text = ""
    elif isinstance(inner, float) or hasattr(inner, "item"):
        text = format_value(inner, ".17g")
    else:
        text = format_value(inner)
    if isinstance(v, Cell) and v.notes:
        text += "".join(f" [{m}]" for m in v.notes)
    return text


# -- LaTeX ----------------------------------------------------------------------

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}
# Non-ASCII symbols used in duelbound labels, as pdflatex-safe ASCII.
_LATEX_UNICODE = {
    "Δ": r"$\Delta$", "δ": r"$\delta$", "ε": r"$\varepsilon$", "α": r"$\alpha$",
    "β": r"$\beta$", "µ": r"$\mu$", "μ": r"$\mu$", "σ": r"$\sigma$", "ζ": r"$\zeta$",
    "×": r"$\times$", "≥": r"$\geq$", "≤": r"$\leq$", "≠": r"$\neq$", "∈": r"$\in$",
    "∉": r"$\notin$", "→": r"$\to$", "−": "-", "–": "--", "—": "---", "²": r"$^2$",
    "³": r"$^3$", "√": r"$\surd$", "½": r"$\frac{1}{2}$", "·": r"$\cdot$", "∞": r"$\infty$",
    "≈": r"$\approx$", "Σ": r"$\Sigma$", "⁻": r"$^{-}$", "…": r"\dots{}", "’": "'",
    "“": "``", "”": "''", "ⁱ": r"$^i$", "ᵢ": r"$_i$", "∗": "*", "§": r"\S{}",
}


def latex_escape(s: str) -> str:
    """Escape ``s`` for LaTeX text mode; the result is pure ASCII.

    Special characters get their text-mode commands, known symbols (Greek
    letters, ×, ≥, ², …) become math-mode commands, accented letters lose their
    accents and anything else unknown becomes ``?``.
    """
    out = []
    for ch in s:
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(latex_escape(ascii_) if ascii_ else "?")
    # join adjacent math groups ("$\Delta$$^2$" -> "$\Delta^2$"); never an escaped "\$"
    return re.sub(r"(?<!\\)\$\$", "", "".join(out))


def _tex_marker(m: str) -> str:
    return r"\textsuperscript{" + latex_escape(m) + "}"


def _render_latex(t: Table) -> str:
    spec = "".join("l" if c.align == "l" else "r" for c in t.columns)
    head = " & ".join(_tex_header(c) for c in t.columns) + r" \\"
    body = [" & ".join(_tex_cell(row.get(c.key), c) for c in t.columns) + r" \\"
            for row in t.rows]
    out = [
        r"% generated by duelbound; needs \usepackage{booktabs}",
        r"\begin{table}[htbp]",
        r"\centering",
        r"\caption{" + latex_escape(t.title) + "}",
        r"\begin{tabular}{" + spec + "}",
        r"\toprule",
        head,
        r"\midrule",
        *body,
        r"\bottomrule",
        r"\end{tabular}",
    ]
    notes = [latex_escape(line) for line in t.preamble()]
    notes += [_tex_marker(m) + "~" + latex_escape(text) for m, text in t.footnotes.items()]
    if notes:
        out += [r"\par\smallskip", r"\begin{minipage}{\linewidth}\footnotesize",
                *[n + r"\par" for n in notes], r"\end{minipage}"]
    out.append(r"\end{table}")
    return "\n".join(out)


def _tex_header(c: Column) -> str:
    text = latex_escape(c.label + (f" ({c.unit})" if c.unit else ""))
    return text + "".join(_tex_marker(m) for m in c.notes)


def _tex_cell(v: Any, c: Column) -> str:
    if isinstance(v, Cell):
        base = v.text if v.text is not None else format_value(v.value, c.fmt)
        return latex_escape(base) + "".join(_tex_marker(m) for m in v.notes)
    return latex_escape(format_value(v, c.fmt))


# -- JSON -----------------------------------------------------------------------

def _render_json(t: Table) -> str:
    return json.dumps(t.to_dict(), indent=2, ensure_ascii=False)


_RENDERERS = {"md": _render_md, "latex": _render_latex, "csv": _render_csv,
              "json": _render_json}


def render(table: Table, format: str = "md") -> str:
    """Render ``table`` as ``"md"``, ``"latex"``, ``"csv"`` or ``"json"`` text.

    Raises
    ------
    UnknownNameError
        An unknown format.
    """
    try:
        fn = _RENDERERS[format]
    except KeyError:
        raise UnknownNameError(
            f"unknown table format {format!r}; choose one of {', '.join(FORMATS)}") from None
    return fn(table)


def concat(tables: Iterable[Table], format: str = "md") -> str:
    """Render several tables one after the other (JSON: a list)."""
    tables = list(tables)
    if format == "json":
        return json.dumps([t.to_dict() for t in tables], indent=2, ensure_ascii=False)
    return "\n\n".join(render(t, format) for t in tables)
