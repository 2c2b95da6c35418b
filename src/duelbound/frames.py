"""Shared helpers for tidy tables: pandas frames and notebook display.

pandas is optional (the ``duelbound[pandas]`` extra). Result objects build their
``to_pandas()`` from a list of row dicts with :func:`records_to_frame`, and their
``_repr_html_`` / ``_repr_markdown_`` with :func:`html_table` / :func:`markdown_table`,
which stay small (a few kB) whatever the size of the result.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .errors import DuelboundError

__all__ = [
    "PANDAS_EXTRA",
    "require_pandas",
    "records_to_frame",
    "format_cell",
    "html_table",
    "markdown_table",
    "short_repr",
]

#: The pip extra that installs pandas.
PANDAS_EXTRA = "duelbound[pandas]"


def require_pandas() -> Any:
    """Import and return :mod:`pandas`, or raise a :class:`DuelboundError` naming the extra.

    Returns
    -------
    module
        The ``pandas`` module.

    Raises
    ------
    DuelboundError
        pandas is not installed; the message says ``pip install 'duelbound[pandas]'``.
    """
    try:
        import pandas
    except ImportError:
        raise DuelboundError(
            f"pandas is not installed: pip install '{PANDAS_EXTRA}' (or pip install pandas)"
        ) from None
    return pandas


def records_to_frame(rows: Iterable[Mapping[str, Any]],
                     columns: Sequence[str] | None = None) -> Any:
    """A tidy :class:`pandas.DataFrame` with one row per record.

    Parameters
    ----------
    rows : iterable of mapping
        One dict per observation.
    columns : sequence of str, optional
        Column order (and the columns of an empty frame); default: the keys of the rows in
        first-seen order.

    Returns
    -------
    pandas.DataFrame
    """
    pd = require_pandas()
    rows = [dict(r) for r in rows]
    if columns is None:
        seen: dict[str, None] = {}
        for r in rows:
            seen.update(dict.fromkeys(r))
        columns = list(seen)
    return pd.DataFrame.from_records(rows, columns=list(columns))


def format_cell(value: Any, width: int = 40) -> str:
    """A short text form of one table cell (floats to 4 significant digits, long text cut).

    Parameters
    ----------
    value : object
        The cell.
    width : int
        Longest text kept; longer text ends with an ellipsis.

    Returns
    -------
    str
    """
    if value is None:
        text = "-"
    elif isinstance(value, float) or type(value).__name__.startswith("float"):
        v = float(value)
        text = "nan" if math.isnan(v) else f"{v:.4g}"
    else:
        text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _visible(rows: Sequence[Mapping[str, Any]], max_rows: int
             ) -> tuple[list[Mapping[str, Any]], int]:
    rows = list(rows)
    if len(rows) <= max_rows:
        return rows, 0
    return rows[:max_rows], len(rows) - max_rows


def html_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
               max_rows: int = 20, caption: str | None = None) -> str:
    """A small HTML table of ``rows`` (for ``_repr_html_``), at most ``max_rows`` rows shown.

    Parameters
    ----------
    rows : sequence of mapping
        One dict per row; missing keys show as ``-``.
    columns : sequence of str
        The columns shown, in order.
    max_rows : int
        Rows beyond this are summarised by one "… n more rows" line.
    caption : str, optional
        Caption above the table.

    Returns
    -------
    str
        HTML text, a few kB at most for the default ``max_rows``.
    """
    shown, hidden = _visible(rows, max_rows)
    esc = html.escape
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th>{esc(c)}</th>" for c in columns) + "</tr>")
    for r in shown:
        out.append("<tr>" + "".join(f"<td>{esc(format_cell(r.get(c)))}</td>"
                                    for c in columns) + "</tr>")
    if hidden:
        out.append(f'<tr><td colspan="{len(columns)}">… {hidden} more rows '
                   f"(to_pandas() has them all)</td></tr>")
    out.append("</table>")
    return "".join(out)


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
                   max_rows: int = 20, caption: str | None = None) -> str:
    """The Markdown twin of :func:`html_table` (for ``_repr_markdown_``).

    Parameters
    ----------
    rows, columns, max_rows, caption
        As in :func:`html_table`.

    Returns
    -------
    str
    """
    shown, hidden = _visible(rows, max_rows)

    def cell(v: Any) -> str:
        return format_cell(v).replace("|", "\\|")

    out = [f"**{caption}**", ""] if caption else []
    out.append("| " + " | ".join(columns) + " |")
    out.append("|" + "---|" * len(columns))
    out += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in shown]
    if hidden:
        out.append(f"\n… {hidden} more rows (to_pandas() has them all)")
    return "\n".join(out)


def short_repr(kind: str, /, **fields: Any) -> str:
    """A one-line ``Kind(a=1, b='x')`` repr with every value shortened.

    Parameters
    ----------
    kind : str
        Class name shown (positional only: a field may be called ``kind``).
    **fields
        The fields shown, in order.

    Returns
    -------
    str
    """
    def text(v: Any) -> str:
        return repr(format_cell(v, 60)) if isinstance(v, str) else format_cell(v, 60)

    inner = ", ".join(f"{k}={text(v)}" for k, v in fields.items())
    return f"{kind}({inner})"
