"""Text with a LaTeX form: labels, escaping, math notation and citations.

:class:`Markup` pairs a plain label with its LaTeX; :func:`latex_text` typesets the
package's plain notation (``C*``, ``log T``, ``Δ_min`` …) as math and source tags such as
``[K16]`` as ``\\cite{...}`` (keys: :data:`CITE_KEYS`); :func:`latex_escape` makes any text
pdflatex-safe ASCII.  Part of the ground floor (:mod:`duelbound.render`): imports no layer.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Markup", "Text", "plain", "latex_text", "latex_escape", "latex_data", "CITE_KEYS"]

#: Short source tags used in labels and notes -> BibTeX keys of ``references.bib``.
CITE_KEYS = {
    "K16": "komiyama2016copeland", "Z15": "zoghi2015copeland", "W16": "wu2016double",
    "U13": "urvoy2013generic", "Z14": "zoghi2014relative", "K15": "komiyama2015regret",
    "Y11": "yue2011beat",
}


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
