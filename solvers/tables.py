"""Result tables for the bounds: the renderers of :mod:`duelbound.render` and the bibliography.

The general table model and its Markdown/LaTeX/CSV/JSON renderers moved to the ground floor,
:mod:`duelbound.render` (they import no layer, so checks and the CLI use them without the
maths); this module re-exports them under their old names and keeps what belongs to the bounds:
:func:`bibliography`, the BibTeX entries of the papers the bound tables cite.
"""

from __future__ import annotations

from importlib import resources

from ..render import *  # noqa: F403 -- a re-export: every public name of duelbound.render
from ..render import __all__ as _RENDER_NAMES

__all__ = [*_RENDER_NAMES, "bibliography"]


def bibliography() -> str:
    """The BibTeX entries of every paper the package cites (keys: :data:`CITE_KEYS`)."""
    return resources.files("duelbound.solvers").joinpath("references.bib").read_text(
        encoding="utf-8")
