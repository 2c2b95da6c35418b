"""LaTeX tables: booktabs tabulars wrapped into panels that fit the page.

Widths and heights are estimated from Computer Modern metrics (:func:`latex_layout`), so a
wide table is split into stacked panels (index columns repeated) instead of running off
the page; :func:`too_wide_message` warns when it still cannot fit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import DuelboundError, UnknownNameError, shown
from .markup import latex_data, latex_escape, latex_text, plain
from .table import MISSING, Cell, Column, Table, format_value, index_keys

__all__ = ["LatexStyle", "LatexLayout", "latex_layout", "render_latex", "too_wide_message",
           "TEXTWIDTH_PT", "TEXTWIDTH_WIDE_PT", "TEXTHEIGHT_PT"]

#: ``\textwidth`` of the article class at 10pt, one column (the default target width).
TEXTWIDTH_PT = 345.0
#: ``\textwidth`` of the article class at 10pt, two columns (target of ``table*``).
TEXTWIDTH_WIDE_PT = 469.0
#: ``\textheight`` of the article class at 10pt: a float taller than this cannot be set.
TEXTHEIGHT_PT = 550.0


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
                                 f"got {shown(self.width)}")

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
    return {"inf": r"$\infty$", "-inf": r"$-\infty$", "nan": "--", MISSING: "--"}.get(
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
    idx = [keys.index(k) for k in index_keys(t)]
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


def render_latex(t: Table, style: LatexStyle | None = None) -> str:
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
