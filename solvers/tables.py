"""Result tables for the bounds: the renderers of :mod:`duelbound.render` and the bibliography.

The general table model and its Markdown/LaTeX/CSV/JSON renderers moved to the ground floor,
:mod:`duelbound.render` (they import no layer, so checks and the CLI use them without the
maths); this module re-exports them under their old names and keeps what belongs to the bounds:
:func:`bibliography`, the BibTeX entries of the papers the bound tables cite.
"""

from __future__ import annotations

from importlib import resources

from ..render import (
    CITE_KEYS,
    FORMATS,
    TEXTHEIGHT_PT,
    TEXTWIDTH_PT,
    TEXTWIDTH_WIDE_PT,
    Cell,
    Column,
    LatexLayout,
    LatexStyle,
    Markup,
    Table,
    Text,
    concat,
    format_value,
    latex_data,
    latex_escape,
    latex_layout,
    latex_text,
    notes_text,
    plain,
    render,
    too_wide_message,
)

__all__ = ["Column", "Cell", "Markup", "Table", "Text", "FORMATS", "render", "concat",
           "format_value", "latex_escape", "latex_data", "latex_text", "plain", "LatexStyle",
           "LatexLayout", "latex_layout", "notes_text", "bibliography", "CITE_KEYS",
           "TEXTWIDTH_PT", "TEXTWIDTH_WIDE_PT", "TEXTHEIGHT_PT", "too_wide_message"]


def bibliography() -> str:
    """The BibTeX entries of every paper the package cites (keys: :data:`CITE_KEYS`)."""
    return resources.files("duelbound.solvers").joinpath("references.bib").read_text(
        encoding="utf-8")
