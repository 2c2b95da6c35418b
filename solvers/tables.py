"""Generic result tables: one data model, four renderers.

A :class:`Table` holds a title, typed :class:`Column` descriptions (label, unit,
number format, footnotes, an optional header group), rows of plain values,
footnotes and the regret convention the numbers are stated in.  :func:`render`
turns the *same* table into Markdown, LaTeX, CSV or JSON:

* **Markdown** for terminals and notebooks, footnotes under the table;
* **LaTeX** for papers: booktabs, labels typeset as math (:class:`Markup`),
  sources ``[K16]`` as ``\\cite{...}`` (BibTeX file: :func:`bibliography`),
  short footnotes, and columns wrapped into stacked panels so that the table
  fits the text width (:class:`LatexStyle`, :func:`latex_layout`);
* **CSV** (RFC 4180): one header row, then data; numbers unquoted; no notes
  (:func:`notes_text` gives them for a sidecar file);
* **JSON**: everything, values and notes apart.

Used by the bound tables (:mod:`duelbound.solvers.comparison`) and by the sweep
reports.

Examples
--------
>>> from duelbound.solvers.tables import Column, Markup, Table, render
>>> t = Table("demo", [Column("name", "matrix", align="l"),
...                     Column("c", Markup("C*", "$C^{*}$"), unit="x log T", notes=("a",))],
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
>>> render(t, "csv").splitlines()     # RFC 4180: CRLF line breaks, one header row
['matrix,C* (x log T),convention', 'cyclic,27.5526,komiyama']
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ..theory.errors import DuelboundError, UnknownNameError

__all__ = ["Column", "Cell", "Markup", "Table", "FORMATS", "render", "concat", "format_value",
           "latex_escape", "latex_data", "latex_text", "plain", "LatexStyle", "LatexLayout",
           "latex_layout", "notes_text", "bibliography", "CITE_KEYS", "TEXTWIDTH_PT",
           "TEXTWIDTH_WIDE_PT", "TEXTHEIGHT_PT", "too_wide_message"]

#: Output formats understood by :func:`render`.
FORMATS = ("md", "latex", "csv", "json")

#: ``\textwidth`` of the article class at 10pt, one column (the default target width).
TEXTWIDTH_PT = 345.0
#: ``\textwidth`` of the article class at 10pt, two columns (target of ``table*``).
TEXTWIDTH_WIDE_PT = 469.0
#: ``\textheight`` of the article class at 10pt: a float taller than this cannot be set.
TEXTHEIGHT_PT = 550.0

#: Short source tags used in labels and notes -> BibTeX keys of ``references.bib``.
CITE_KEYS = {
    "K16": "komiyama2016copeland", "Z15": "zoghi2015copeland", "W16": "wu2016double",
    "U13": "urvoy2013generic", "Z14": "zoghi2014relative", "K15": "komiyama2015regret",
    "Y11": "yue2011beat",
}

_MISSING = "—"


@dataclass(frozen=True)
class Markup:
    """Text with a LaTeX form.

    ``plain`` is used by Markdown, CSV and JSON, ``latex`` verbatim by LaTeX
    (e.g. ``Markup("C^E*", "$C^{E*}$")``).  ``str(m)`` is the plain text.
    """

    plain: str
    latex: str

    def __str__(self) -> str:
        return self.plain


#: A label: plain text (escaped for LaTeX) or :class:`Markup`.
Text = str | Markup


def plain(text: Text | None) -> str:
    """The plain form of a label (``""`` for None)."""
    return "" if text is None else str(text)


# Plain-text notation typeset as math by :func:`latex_text` (longest first).
_MATH_TOKENS = [
    (r"(?:C\^E\*|C\*|Δ|Σ|min|max|(?<![A-Za-z])[A-Za-z])_(?:\{[^}]*\}|[A-Za-z0-9]+)",
     None),  # subscripts
    (r"C\^E\*", r"$C^{E*}$"), (r"C\*", r"$C^{*}$"), (r"log log T", r"$\log\log T$"),
    (r"log\(1/δ\)", r"$\log(1/\delta)$"), (r"log T", r"$\log T$"), (r"ln T", r"$\ln T$"),
    (r"R\(T\)", r"$R(T)$"), (r"(?<![\w.])x(?= ?[\d(]| ?log| ?ln)", r"$\times$"),
    (r"->", r"$\to$"), (r"\+-", r"$\pm$"),
]
_MATH_RE = re.compile("|".join(f"({p})" for p, _ in _MATH_TOKENS))


_SUB_BASE = {"C^E*": "C^{E*}", "C*": "C^{*}", "Δ": r"\Delta", "Σ": r"\sum", "min": r"\min",
             "max": r"\max"}


def _subscript(token: str) -> str:
    """A subscripted symbol as math: ``Δ_min`` -> ``$\\Delta_{\\min}$``, ``L_i2`` -> ``$L_i_2$``."""
    base, sub = token.split("_", 1)
    sub = sub.strip("{}")
    sub = {"min": r"\min", "max": r"\max"}.get(sub) or re.sub(r"([a-z])(\d)", r"\1_\2", sub)
    return f"${_SUB_BASE.get(base, base)}_{{{sub}}}$"


def latex_text(text: Text | None) -> str:
    """The LaTeX form of a label.

    :class:`Markup` is used verbatim.  Plain text is escaped (:func:`latex_escape`),
    its notation typeset (``C^E*`` -> ``$C^{E*}$``, ``C*``, ``log T``,
    ``log log T``, ``ln T``, ``R(T)``, ``x0.5`` / ``x log T`` -> ``$\\times$``,
    ``->``) and source tags cited (``[K16]`` -> ``\\cite{komiyama2016copeland}``).

    Examples
    --------
    >>> print(latex_text("C^E*/C* at x0.5 -> [K16]"))
    $C^{E*}$/$C^{*}$ at $\\times$0.5 $\\to$ \\cite{komiyama2016copeland}
    """
    if text is None:
        return ""
    if isinstance(text, Markup):
        return text.latex
    out, pos = [], 0
    for m in _MATH_RE.finditer(text):
        out.append(latex_escape(text[pos:m.start()]))
        assert m.lastindex is not None  # one alternative (group) matched
        tex = _MATH_TOKENS[m.lastindex - 1][1]
        out.append(tex if tex is not None else _subscript(m.group(0)))
        pos = m.end()
    out.append(latex_escape(text[pos:]))
    return _cite(re.sub(r"(?<!\\)\$\$", "", "".join(out)))


def _cite(tex: str) -> str:
    return re.sub(r"\[([A-Z]\d\d)\]",
                  lambda m: (r"\cite{" + CITE_KEYS[m.group(1)] + "}"
                             if m.group(1) in CITE_KEYS else m.group(0)), tex)


def bibliography() -> str:
    """The BibTeX entries of every paper the package cites (keys: :data:`CITE_KEYS`)."""
    return resources.files("duelbound.solvers").joinpath("references.bib").read_text(
        encoding="utf-8")


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
        rows = [{c.key: _json_value(_cell_value(row.get(c.key))) for c in self.columns}
                for row in self.rows]
        return {"title": plain(self.title), "convention": self.convention,
                "notes": [plain(n) for n in self.notes],
                "columns": [c.to_dict() for c in self.columns], "rows": rows,
                "cell_notes": self.cell_notes(),
                "footnotes": {m: plain(t) for m, t in self.footnotes.items()}}


def _cell_value(v: Any) -> Any:
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
        ident = ", ".join(format_value(_cell_value(row.get(k))) for k in _index_keys(table))
        out.append(f"row {cn['row'] + 1} ({ident}), column '{labels[cn['column']]}': "
                   + " ".join(f"[{m}]" for m in cn["notes"]))
    return "\n".join(out)


def _index_keys(t: Table) -> tuple[str, ...]:
    return t.index or ((t.columns[0].key,) if t.columns else ())


# -- Markdown -------------------------------------------------------------------

def _md_escape(s: str) -> str:
    return s.replace("|", r"\|")


def _render_md(t: Table) -> str:
    head = "| " + " | ".join(_md_escape(c.header()) for c in t.columns) + " |"
    rule = "|" + "|".join(":---" if c.align == "l" else "---:" for c in t.columns) + "|"
    body = ["| " + " | ".join(_md_escape(_cell_text(row.get(c.key), c, _bracket))
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

def _render_csv(t: Table) -> str:
    """RFC 4180: one header row, then the data; no comments, no footnote markers.

    Floats are written in the shortest form that reads back exactly, never quoted; the convention is
    a column (when the table has one), so every row says what its numbers mean.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    with_conv = t.convention is not None and "convention" not in {c.key for c in t.columns}
    w.writerow([c.header(None) for c in t.columns] + (["convention"] if with_conv else []))
    for row in t.rows:
        w.writerow([_csv_cell(row.get(c.key)) for c in t.columns]
                   + ([t.convention] if with_conv else []))
    return buf.getvalue().rstrip("\r\n")


def _csv_cell(v: Any) -> str:
    # CSV keeps full precision: it is read back by programs, not people.
    inner = _cell_value(v)
    if inner is None:
        return ""
    if hasattr(inner, "item") and not isinstance(inner, (str, bytes, bool)):
        inner = inner.item()  # numpy scalar
    if isinstance(inner, float) and math.isfinite(inner):
        return repr(inner)  # the shortest text that reads back as the same float
    return format_value(inner)


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
    "“": "``", "”": "''", "ⁱ": r"$^i$", "ᵢ": r"$_i$", "∗": "*", "§": r"\S{}", "±": r"$\pm$",
}


def latex_escape(s: str) -> str:
    """Escape ``s`` for LaTeX text mode; the result is pure ASCII.

    Special characters get their text-mode commands, known symbols (Greek
    letters, ×, ≥, ², …) become math-mode commands, accented letters lose their
    accents and anything else unknown becomes ``?``.
    """
    out = []
    for ch in s:
        if unicodedata.category(ch) == "Cc":
            out.append("?")   # control characters have no text-mode form
        elif ch in _LATEX_SPECIAL:
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


def latex_data(s: str) -> str:
    """:func:`latex_escape` for data in a cell (arm, matrix, algorithm names): a cell that
    starts with ``[`` or ``*`` right after ``\\`` would be read as ``\\[length]`` or
    ``\\*``, so it is shielded with ``{}``."""
    text = latex_escape(s)
    return "{}" + text if text.startswith(("[", "*")) else text


@dataclass(frozen=True)
class LatexStyle:
    """How a LaTeX table is wrapped.

    Parameters
    ----------
    env : {"table", "table*", "none"}
        Float environment (``table*`` spans both columns of a two-column
        paper); ``"none"``: the tabulars and notes only, to ``\\input`` into a
        float of your own.
    resize : bool
        Scale one tabular to the line width with ``\\resizebox`` (needs
        ``graphicx``) instead of wrapping wide tables into panels.
    width : float, optional
        Target width in pt; default :data:`TEXTWIDTH_PT` (``table*``:
        :data:`TEXTWIDTH_WIDE_PT`).
    label : str, optional
        ``\\label`` of the table.
    placement : str
        Float placement (``htbp``).
    """

    env: str = "table"
    resize: bool = False
    width: float | None = None
    label: str | None = None
    placement: str = "htbp"

    def __post_init__(self) -> None:
        if self.env not in ("table", "table*", "none"):
            raise UnknownNameError(f"unknown LaTeX environment {self.env!r}; choose one of "
                                   "table, table*, none")
        if self.width is not None and not (self.width > 0 and math.isfinite(self.width)):
            raise DuelboundError(f"LaTeX width must be a positive number of pt, "
                                 f"got {self.width!r}")

    @property
    def target(self) -> float:
        """The width the tabulars must fit, in pt."""
        if self.width is not None:
            return float(self.width)
        return TEXTWIDTH_WIDE_PT if self.env == "table*" else TEXTWIDTH_PT


#: Font of the tabulars (``\small``: 9pt) and the column separation set in the float.
_FONT_SCALE = 0.925
_TABCOLSEP = 4.0
#: Estimated widths are multiplied by this before comparing with the target.
_SAFETY = 1.04

# Character widths of Computer Modern Roman 10pt, in pt (approximate, a bit generous).
_CHAR_W = {**dict.fromkeys("0123456789", 5.0), **dict.fromkeys("iljI.,:;'!|", 2.8),
           **dict.fromkeys("ftr()[]-", 3.9), **dict.fromkeys("mMW", 9.2),
           **dict.fromkeys("wAVXYDGHKNOQUw", 7.8), **dict.fromkeys("+=<>*", 7.8),
           " ": 3.4, "/": 5.0}
_MATH_CMD_W = {"times": 7.8, "cdot": 2.8, "infty": 10.0, "log": 12.0, "ln": 8.0,
               "pm": 7.8, "min": 14.0, "max": 14.0}


def _char_w(ch: str) -> float:
    if ch in _CHAR_W:
        return _CHAR_W[ch]
    return 7.5 if ch.isupper() else 5.3


def _tex_width(tex: str) -> float:
    """Rough natural width (pt, at 10pt) of a one-line LaTeX snippet."""
    tex = re.sub(r"\\textsuperscript\{([^}]*)\}", lambda m: "\x01" * len(m.group(1)), tex)
    tex = re.sub(r"\\cite(\[[^]]*\])?\{[^}]*\}", "[00]", tex)
    tex = re.sub(r"\\(?:textasciicircum|textasciitilde|textbackslash|textless|textgreater"
                 r"|textbar|S|dots)\{\}", "m", tex)
    tex = re.sub(r"\\([&%$#_{}])", r"\1", tex)
    w = 0.0
    for k, part in enumerate(re.split(r"(?<!\\)\$", tex)):
        if k % 2:  # math: commands have their own widths, scripts are smaller
            part = re.sub(r"[_^]\{([^}]*)\}", lambda m: "\x01" * len(m.group(1)), part)
            part = re.sub(r"[_^](.)", "\x01", part)
            for cmd in re.findall(r"\\([A-Za-z]+)", part):
                w += _MATH_CMD_W.get(cmd, 8.0)
            part = re.sub(r"\\[A-Za-z]+|[{}\\ ]", "", part)
        else:
            part = re.sub(r"\\[A-Za-z]+\s*|[{}]", "", part)
        w += sum(3.5 if ch == "\x01" else _char_w(ch) for ch in part)
    return w * _FONT_SCALE


def _tex_number(text: str) -> str:
    """``1.6e+06`` -> ``$1.6\\times 10^{6}$``; ``inf`` -> ``$\\infty$``; dash -> ``--``."""
    m = re.fullmatch(r"(-?[\d.]+)e([+-])0*(\d+)", text)
    if m:
        sign = "-" if m.group(2) == "-" else ""
        return rf"${m.group(1)}\times 10^{{{sign}{m.group(3)}}}$"
    return {"inf": r"$\infty$", "-inf": r"$-\infty$", "nan": "--", _MISSING: "--"}.get(
        text, None) or latex_escape(text)


def _tex_marker(m: str) -> str:
    # a thin space first: right after "10^{7}" or "16235.9" a mark must not look like a digit
    return r"\,\textsuperscript{" + latex_escape(m) + "}"


def _tex_cell(v: Any, c: Column) -> str:
    text = _tex_cell_text(v, c)
    if c.width is not None:
        return rf"\parbox[t]{{{c.width:g}pt}}{{\raggedright {text}}}"
    return text


def _tex_cell_text(v: Any, c: Column) -> str:
    if isinstance(v, Cell):
        base = (latex_text(v.text) if v.text is not None
                else _tex_number(format_value(v.value, c.fmt)))
        return base + "".join(_tex_marker(m) for m in v.notes)
    if isinstance(v, str):  # data (matrix, algorithm names): escaped, never reinterpreted
        return latex_data(v)
    return _tex_number(format_value(v, c.fmt))


def _tex_header_lines(c: Column, grouped: bool) -> list[str]:
    """The header of ``c`` as one or two lines (label, then the unit in parentheses)."""
    marks = "".join(_tex_marker(m) for m in c.notes)
    if grouped and c.sub is not None:
        return [latex_text(c.sub) + marks]
    if c.unit:
        return [latex_text(c.label) + marks, f"({latex_text(c.unit)})"]
    return [latex_text(c.label) + marks]


def _tex_header(c: Column, grouped: bool) -> str:
    lines = _tex_header_lines(c, grouped)
    if len(lines) == 1:
        return lines[0]
    align = "l" if c.align == "l" else "r"
    return (rf"\begin{{tabular}}[b]{{@{{}}{align}@{{}}}}" + r" \\ ".join(lines)
            + r"\end{tabular}")


@dataclass(frozen=True)
class LatexLayout:
    """How a table is split into stacked panels and how wide they are (estimated).

    ``panels`` lists, per panel, the column indices it shows (the index columns
    first); ``widths`` the estimated width of each panel in pt; ``fits`` is
    True when every panel fits ``target``.
    """

    panels: list[list[int]]
    widths: list[float]
    target: float
    resize: bool
    height: float = 0.0
    page_height: float = TEXTHEIGHT_PT

    @property
    def wide(self) -> bool:
        """Some panel is wider than the target."""
        return not self.resize and any(w > self.target for w in self.widths)

    @property
    def tall(self) -> bool:
        """The float (panels, caption, notes) is taller than the page."""
        return self.height > self.page_height

    @property
    def fits(self) -> bool:
        return not (self.wide or self.tall)

    @property
    def width(self) -> float:
        return max(self.widths, default=0.0)


def _units(t: Table, skip: set[int]) -> list[list[int]]:
    """Consecutive columns with the same (non-None) group, the others one by one."""
    out: list[list[int]] = []
    for i, c in enumerate(t.columns):
        if i in skip:
            continue
        if out and c.group is not None and t.columns[out[-1][-1]].group == c.group \
                and out[-1][-1] == i - 1:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _col_widths(t: Table, grouped: bool) -> list[float]:
    out = []
    for c in t.columns:
        cells = ([c.width] if c.width is not None else
                 [_tex_width(_tex_cell(row.get(c.key), c)) for row in t.rows])
        head = [_tex_width(line) for line in _tex_header_lines(c, grouped)]
        out.append(max([*head, *cells]) + 2 * _TABCOLSEP)
    return out


def latex_layout(t: Table, style: LatexStyle | None = None) -> LatexLayout:
    """Split ``t`` into panels that fit ``style.target`` (estimated from font metrics).

    The index columns (:attr:`Table.index`) are repeated in every panel; a
    header group stays in one panel.  With ``style.resize`` there is one panel.
    """
    style = style or LatexStyle()
    keys = [c.key for c in t.columns]
    idx = [keys.index(k) for k in _index_keys(t)]
    grouped = any(c.group is not None for c in t.columns)
    cw = _col_widths(t, grouped)
    units = _units(t, set(idx))

    def unit_w(u: list[int]) -> float:
        g = t.columns[u[0]].group
        span = sum(cw[i] for i in u)
        return max(span, _tex_width(latex_text(g)) + 2 * _TABCOLSEP) if g is not None else span

    base = sum(cw[i] for i in idx)
    uws = [unit_w(u) for u in units]
    if style.resize or not units:
        panels = [idx + [i for u in units for i in u]]
        return LatexLayout(panels, [base + sum(uws)], style.target, style.resize,
                           _height(t, panels, style))
    n = len(_pack(base, uws, style.target))
    # balance: the narrowest width that still needs no more than n panels
    limit = max(base + sum(uws) / n, base + max(uws))
    while len(groups := _pack(base, uws, limit)) > n:
        limit *= 1.02
    panels = [idx + [i for k in g for i in units[k]] for g in groups]
    widths = [(base + sum(uws[k] for k in g)) * _SAFETY for g in groups]
    return LatexLayout(panels, widths, style.target, False, _height(t, panels, style))


_ROW_PT = 11.0        # \small baselineskip
_NOTE_LINE_PT = 9.5   # \footnotesize baselineskip
_NOTE_SCALE = 8.0 / 9.0


def _height(t: Table, panels: list[list[int]], style: LatexStyle) -> float:
    """Rough height (pt) of the float: caption, panels (rows, wrapped cells, rules), notes."""
    h = 24.0 if style.env != "none" else 0.0  # caption and its skip
    for cols in panels:
        columns = [t.columns[i] for i in cols]
        grouped = any(c.group is not None for c in columns)
        head = max(len(_tex_header_lines(c, grouped)) for c in columns) + int(grouped)
        h += head * _ROW_PT + 8.0 + 6.0  # header rows, three rules, space between panels
        for row in t.rows:
            lines = [math.ceil(_tex_width(_tex_cell_text(row.get(c.key), c)) / c.width)
                     for c in columns if c.width]
            h += _ROW_PT * max([1, *lines])
    notes = _tex_notes(t)
    for n in notes:
        h += _NOTE_LINE_PT * math.ceil(_tex_width(n) * _NOTE_SCALE / style.target)
    return (h + (6.0 if notes else 0.0)) * 1.07  # calibrated on TeX's heights (+-5 %)


def _tex_notes(t: Table) -> list[str]:
    """Paragraphs under the table: each preamble line, then the footnotes run together."""
    notes = [latex_text(line) for line in t.preamble()]
    marked = [_tex_marker(m) + "~" + latex_text(text) for m, text in t.footnotes.items()]
    return notes + ([r"\quad ".join(marked)] if marked else [])


def _pack(base: float, widths: list[float], limit: float) -> list[list[int]]:
    """Greedy: consecutive units into panels of (estimated) width at most ``limit``."""
    groups: list[list[int]] = [[]]
    w = base
    for k, uw in enumerate(widths):
        if groups[-1] and (w + uw) * _SAFETY > limit:
            groups.append([])
            w = base
        groups[-1].append(k)
        w += uw
    return groups


def _tex_tabular(t: Table, cols: list[int]) -> list[str]:
    columns = [t.columns[i] for i in cols]
    grouped = any(c.group is not None for c in columns)
    spec = "".join("l" if c.align == "l" else "r" for c in columns)
    out = [r"\begin{tabular}{" + spec + "}", r"\toprule"]
    if grouped:
        top, rules, pos = [], [], 1
        k = 0
        while k < len(columns):
            g = columns[k].group
            n = 1
            while g is not None and k + n < len(columns) and columns[k + n].group == g:
                n += 1
            if g is None:
                top.append("")
            else:
                top.append(rf"\multicolumn{{{n}}}{{c}}{{{latex_text(g)}}}")
                rules.append(rf"\cmidrule(lr){{{pos}-{pos + n - 1}}}")
            pos += n
            k += n
        out += [" & ".join(top) + r" \\", " ".join(rules)]
    out.append(" & ".join(_tex_header(c, grouped) for c in columns) + r" \\")
    out.append(r"\midrule")
    out += [" & ".join(_tex_cell(row.get(c.key), c) for c in columns) + r" \\"
            for row in t.rows]
    out += [r"\bottomrule", r"\end{tabular}"]
    return out


def _render_latex(t: Table, style: LatexStyle | None = None) -> str:
    style = style or LatexStyle()
    layout = latex_layout(t, style)
    needs = r"\usepackage{booktabs}" + (r", \usepackage{graphicx}" if style.resize else "")
    out = [f"% generated by duelbound; needs {needs}; bibliography: duelbound cite"]
    if style.env != "none":
        out += [rf"\begin{{{style.env}}}[{style.placement}]", r"\centering"]
        out.append(r"\caption{" + latex_text(t.title) + "}")
        if style.label:
            out.append(r"\label{" + style.label + "}")
    out += [r"\small", rf"\setlength{{\tabcolsep}}{{{_TABCOLSEP:g}pt}}"]
    for k, cols in enumerate(layout.panels):
        body = _tex_tabular(t, cols)
        if style.resize:
            body = [r"\resizebox{\linewidth}{!}{%", *body, "}"]
        if k:
            out.append(r"\par\medskip")
        if style.env == "none":  # in running text, not a float: no paragraph indent
            out.append(r"\noindent")
        out += body
    notes = _tex_notes(t)
    if notes:
        out += [r"\par\smallskip\noindent",
                r"\begin{minipage}{\linewidth}\footnotesize\raggedright",
                *[n + r"\par" for n in notes], r"\end{minipage}"]
    if style.env != "none":
        out.append(rf"\end{{{style.env}}}")
    return "\n".join(out)


# -- JSON -----------------------------------------------------------------------

def _render_json(t: Table) -> str:
    return json.dumps(t.to_dict(), indent=2, ensure_ascii=False)


def render(table: Table, format: str = "md", latex: LatexStyle | None = None) -> str:
    """Render ``table`` as ``"md"``, ``"latex"``, ``"csv"`` or ``"json"`` text.

    ``latex`` sets the LaTeX wrapper and target width (ignored by the other formats).

    Raises
    ------
    UnknownNameError
        An unknown format.
    """
    if format == "latex":
        return _render_latex(table, latex)
    fn = {"md": _render_md, "csv": _render_csv, "json": _render_json}.get(format)
    if fn is None:
        raise UnknownNameError(
            f"unknown table format {format!r}; choose one of {', '.join(FORMATS)}")
    return fn(table)


def concat(tables: Iterable[Table], format: str = "md",
           latex: LatexStyle | None = None) -> str:
    """Render several tables one after the other (JSON: a list; CSV: blank-line separated)."""
    tables = list(tables)
    if format == "json":
        return json.dumps([t.to_dict() for t in tables], indent=2, ensure_ascii=False)
    return "\n\n".join(render(t, format, latex) for t in tables)


def too_wide_message(tables: Sequence[Table], style: LatexStyle | None = None,
                     hint: str = "") -> str | None:
    """A one-line warning when a LaTeX table cannot fit the page (too wide or too tall)."""
    style = style or LatexStyle()
    for t in tables:
        lay = latex_layout(t, style)
        if lay.wide:
            return (f"warning: the LaTeX table '{plain(t.title)}' is about {lay.width:.0f} pt "
                    f"wide, more than the {lay.target:.0f} pt of the page"
                    + (f"; {hint}" if hint else "")
                    + "; or --latex-resize to scale it, --latex-env table* for a wide float")
        if lay.tall:
            return (f"warning: the LaTeX table '{plain(t.title)}' is about {lay.height:.0f} pt "
                    f"tall, more than the {lay.page_height:.0f} pt of a page; split it (fewer "
                    "matrices or --bounds), drop --long, or use --latex-env table*")
    return None
