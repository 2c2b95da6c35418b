"""The table data model and its Markdown, CSV and JSON renderers.

A :class:`Table` holds a title, typed :class:`Column` descriptions, rows of plain values
(or :class:`Cell`), footnotes and the regret convention of its numbers.  LaTeX is in
:mod:`duelbound.render.latex`; :func:`duelbound.render.render` chooses the format.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import DuelboundError
from .markup import Text, plain

__all__ = ["Column", "Cell", "Table", "MISSING", "format_value", "cell_value", "cell_text",
           "notes_text", "index_keys", "render_md", "render_csv", "render_json"]

#: How a missing value (None) is shown.
MISSING = "—"


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Table`.

    Parameters
    ----------
    key : str
        Key of the value in each row dict.
    label : str or Markup
        Header text (Markdown, CSV; LaTeX when the column has no ``sub``).
    unit : str or Markup, optional
        Unit or multiplier shown after the label, e.g. ``"x log T"``.
    notes : tuple of str
        Footnote markers (keys of :attr:`Table.footnotes`) attached to the header.
    fmt : str
        ``format`` spec for float values (``".6g"`` by default).
    align : {"l", "r"}
        Alignment in Markdown and LaTeX.
    group : str or Markup, optional
        LaTeX only: consecutive columns with the same group share one header
        spanning them (``\\multicolumn`` + ``\\cmidrule``) and stay in the same
        panel when a wide table is wrapped.
    sub : str or Markup, optional
        LaTeX only: the header under the group (default: label and unit).
    width : float, optional
        LaTeX only: set the cells as ragged-right paragraphs of this width (pt), so
        long text wraps instead of widening the table.
    """

    key: str
    label: Text
    unit: Text | None = None
    notes: tuple[str, ...] = ()
    fmt: str = ".6g"
    align: str = "r"
    group: Text | None = None
    sub: Text | None = None
    width: float | None = None

    def header(self, marker=lambda m: f"[{m}]") -> str:
        """Plain label, unit in parentheses, then the footnote markers (``marker=None``: none)."""
        text = plain(self.label) + (f" ({plain(self.unit)})" if self.unit else "")
        return text + ("".join(" " + marker(m) for m in self.notes) if marker else "")

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": plain(self.label), "unit": plain(self.unit) or None,
                "notes": list(self.notes), "fmt": self.fmt, "align": self.align}


@dataclass(frozen=True)
class Cell:
    """A cell value with footnote markers, or with a display text that replaces it.

    ``Cell(None, text="n/a")`` shows ``n/a``; ``Cell(3.2, notes=("b",))`` shows
    ``3.2 [b]``.  JSON keeps ``value`` and ``notes`` apart; CSV shows the value only.
    """

    value: Any
    notes: tuple[str, ...] = ()
    text: Text | None = None


@dataclass
class Table:
    """A titled table of rows (dicts keyed by :attr:`Column.key`).

    Parameters
    ----------
    title : str or Markup
    columns : list of Column
    rows : list of dict
        Values may be ``None`` (shown as a dash), numbers, strings, booleans or
        :class:`Cell`.  Keys missing from a row count as ``None``.
    footnotes : dict of str to (str or Markup)
        Marker -> text, in display order.
    convention : str, optional
        Regret convention of the numbers (printed with the table; a column in CSV).
    notes : list of (str or Markup)
        Unmarked notes printed after the table.
    index : tuple of str
        Keys of the columns that identify a row; LaTeX repeats them in every
        panel of a wrapped table (default: the first column).
    """

    title: Text
    columns: list[Column]
    rows: list[dict[str, Any]]
    footnotes: Mapping[str, Text] = field(default_factory=dict)
    convention: str | None = None
    notes: Sequence[Text] = field(default_factory=list)
    index: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        keys = [c.key for c in self.columns]
        if len(set(keys)) != len(keys):
            raise DuelboundError(f"table {plain(self.title)!r}: duplicate column keys {keys}")
        used = {m for c in self.columns for m in c.notes}
        for row in self.rows:
            extra = set(row) - set(keys)
            if extra:
                raise DuelboundError(f"table {plain(self.title)!r}: row keys {sorted(extra)} "
                                     "have no column")
            used |= {m for v in row.values() if isinstance(v, Cell) for m in v.notes}
        missing = used - set(self.footnotes)
        if missing:
            raise DuelboundError(
                f"table {plain(self.title)!r}: undefined footnotes {sorted(missing)}")
        bad = set(self.index) - set(keys)
        if bad:
            raise DuelboundError(f"table {plain(self.title)!r}: index keys {sorted(bad)} "
                                 "have no column")

    def preamble(self) -> list[Text]:
        """The convention line followed by the unmarked notes."""
        lines: list[Text] = [f"Regret convention: {self.convention}."] if self.convention else []
        return lines + list(self.notes)

    def cell_notes(self) -> list[dict[str, Any]]:
        """Footnote markers attached to cells: ``{"row", "column", "notes"}`` records."""
        return [{"row": r, "column": c.key, "notes": list(v.notes)}
                for r, row in enumerate(self.rows) for c in self.columns
                if isinstance(v := row.get(c.key), Cell) and v.notes]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: cells become plain values, cell footnotes are listed apart."""
        rows = [{c.key: _json_value(cell_value(row.get(c.key))) for c in self.columns}
                for row in self.rows]
        return {"title": plain(self.title), "convention": self.convention,
                "notes": [plain(n) for n in self.notes],
                "columns": [c.to_dict() for c in self.columns], "rows": rows,
                "cell_notes": self.cell_notes(),
                "footnotes": {m: plain(t) for m, t in self.footnotes.items()}}


def cell_value(v: Any) -> Any:
    """The data value of a cell (a Cell's display text when it has no value)."""
    if isinstance(v, Cell):
        return plain(v.text) if v.value is None and v.text is not None else v.value
    return v


def _json_value(v: Any) -> Any:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):  # numpy scalar
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)  # JSON has no inf/nan
    return v


def format_value(v: Any, fmt: str = ".6g") -> str:
    """Display text of a plain value: dash for None, ``fmt`` for floats."""
    if v is None:
        return MISSING
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


def cell_text(v: Any, col: Column, marker) -> str:
    if isinstance(v, Cell):
        base = plain(v.text) if v.text is not None else format_value(v.value, col.fmt)
        return base + "".join(" " + marker(m) for m in v.notes)
    return format_value(v, col.fmt)


def notes_text(table: Table) -> str:
    """Title, convention, notes, footnotes and cell notes as plain text (a CSV sidecar)."""
    out = [plain(table.title), *[plain(p) for p in table.preamble()]]
    out += [f"[{m}] {plain(t)}" for m, t in table.footnotes.items()]
    labels = {c.key: c.header(None) for c in table.columns}
    for cn in table.cell_notes():
        row = table.rows[cn["row"]]
        ident = ", ".join(format_value(cell_value(row.get(k))) for k in index_keys(table))
        out.append(f"row {cn['row'] + 1} ({ident}), column '{labels[cn['column']]}': "
                   + " ".join(f"[{m}]" for m in cn["notes"]))
    return "\n".join(out)


def index_keys(t: Table) -> tuple[str, ...]:
    return t.index or ((t.columns[0].key,) if t.columns else ())


# -- Markdown -------------------------------------------------------------------

def _md_escape(s: str) -> str:
    return s.replace("|", r"\|")


def render_md(t: Table) -> str:
    head = "| " + " | ".join(_md_escape(c.header()) for c in t.columns) + " |"
    rule = "|" + "|".join(":---" if c.align == "l" else "---:" for c in t.columns) + "|"
    body = ["| " + " | ".join(_md_escape(cell_text(row.get(c.key), c, _bracket))
                              for c in t.columns) + " |" for row in t.rows]
    out = [f"**{plain(t.title)}**", "", head, rule, *body]
    pre = t.preamble()
    if pre:
        out += ["", *[plain(p) for p in pre]]
    if t.footnotes:
        out += [""] + [f"[{m}] {_md_escape(plain(text))}" for m, text in t.footnotes.items()]
    return "\n".join(out)


def _bracket(m: str) -> str:
    return f"[{m}]"


# -- CSV ------------------------------------------------------------------------

def render_csv(t: Table) -> str:
    """RFC 4180 quoting with LF line ends: one header row, then the data; no comments, no
    footnote markers.

    Floats are written in the shortest form that reads back exactly, never quoted; the convention is
    a column (when the table has one), so every row says what its numbers mean.
    """
    buf = io.StringIO()
    # LF, like every other line the CLI prints (CRLF rows ended by print's LF mixed both);
    # csv readers, pandas and spreadsheets take either
    w = csv.writer(buf, lineterminator="\n")
    with_conv = t.convention is not None and "convention" not in {c.key for c in t.columns}
    w.writerow([c.header(None) for c in t.columns] + (["convention"] if with_conv else []))
    for row in t.rows:
        w.writerow([_csv_cell(row.get(c.key)) for c in t.columns]
                   + ([t.convention] if with_conv else []))
    return buf.getvalue().rstrip("\n")


def _csv_cell(v: Any) -> str:
    # CSV keeps full precision: it is read back by programs, not people.
    inner = cell_value(v)
    if inner is None:
        return ""
    if hasattr(inner, "item") and not isinstance(inner, (str, bytes, bool)):
        inner = inner.item()  # numpy scalar
    if isinstance(inner, float) and math.isfinite(inner):
        return repr(inner)  # the shortest text that reads back as the same float
    return format_value(inner)


# -- JSON -----------------------------------------------------------------------

def render_json(t: Table) -> str:
    """Everything in the table (values, notes, footnotes) as indented JSON."""
    return json.dumps(t.to_dict(), indent=2, ensure_ascii=False)
