"""Generic result tables: one data model, four renderers.

A :class:`Table` holds a title, typed :class:`Column` descriptions (label, unit,
number format, footnotes, an optional header group), rows of plain values,
footnotes and the regret convention the numbers are stated in.  :func:`render`
turns the *same* table into Markdown, LaTeX, CSV or JSON:

* **Markdown** for terminals and notebooks, footnotes under the table;
* **LaTeX** for papers: booktabs, labels typeset as math (:class:`Markup`),
  sources ``[K16]`` as ``\\cite{...}`` (BibTeX file: :func:`duelbound.solvers.tables.bibliography`),
  short footnotes, and columns wrapped into stacked panels so that the table
  fits the text width (:class:`LatexStyle`, :func:`latex_layout`);
* **CSV** (RFC 4180): one header row, then data; numbers unquoted; no notes
  (:func:`notes_text` gives them for a sidecar file);
* **JSON**: everything, values and notes apart.

Used by the bound tables (:mod:`duelbound.solvers.comparison`), the posterior tables and the
sweep reports.  A root utility (the ground floor): it imports no layer, so every layer may
use it.  Modules: :mod:`~duelbound.render.markup` (labels, escaping), :mod:`~duelbound.render.table`
(the model, Markdown/CSV/JSON), :mod:`~duelbound.render.latex` (panels that fit the page).

Examples
--------
>>> from duelbound.render import Column, Markup, Table, render
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
>>> render(t, "csv").splitlines()     # RFC 4180 quoting, LF line ends, one header row
['matrix,C* (x log T),convention', 'cyclic,27.5526,komiyama']
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..errors import UnknownNameError
from .latex import (
    TEXTHEIGHT_PT,
    TEXTWIDTH_PT,
    TEXTWIDTH_WIDE_PT,
    LatexLayout,
    LatexStyle,
    latex_layout,
    render_latex,
    too_wide_message,
)
from .markup import CITE_KEYS, Markup, Text, latex_data, latex_escape, latex_text, plain
from .table import (
    Cell,
    Column,
    Table,
    format_value,
    notes_text,
    render_csv,
    render_json,
    render_md,
)

__all__ = ["Column", "Cell", "Markup", "Table", "Text", "FORMATS", "render", "concat",
           "format_value", "latex_escape", "latex_data", "latex_text", "plain", "LatexStyle",
           "LatexLayout", "latex_layout", "notes_text", "CITE_KEYS", "TEXTWIDTH_PT",
           "TEXTWIDTH_WIDE_PT", "TEXTHEIGHT_PT", "too_wide_message"]

#: Output formats understood by :func:`render`.
FORMATS = ("md", "latex", "csv", "json")

_RENDERERS = {"md": render_md, "csv": render_csv, "json": render_json}


def render(table: Table, format: str = "md", latex: LatexStyle | None = None) -> str:
    """Render ``table`` as ``"md"``, ``"latex"``, ``"csv"`` or ``"json"`` text.

    ``latex`` sets the LaTeX wrapper and target width (ignored by the other formats).

    Raises
    ------
    UnknownNameError
        An unknown format.
    """
    if format == "latex":
        return render_latex(table, latex)
    fn = _RENDERERS.get(format)
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
