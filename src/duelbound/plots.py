"""Figures without pyplot: a new figure, a size-capped save, a digraph and a boxed heat map.

The ground floor of the plots (imports no layer): figures are built on an Agg canvas
without pyplot (no global figure registry, no backend switch, so notebooks keep their
backend), :func:`save_figure` lowers the resolution so that an image never exceeds a few
megapixels, and the two drawing primitives take plain data (a networkx digraph, a numpy
array), so that :func:`duelbound.theory.draw.draw_tournament`, the bound-table plots and the
simulator's regret curves share them.  matplotlib is imported only when a figure is made.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from .errors import DuelboundError

__all__ = ["new_figure", "save_figure", "draw_digraph", "draw_boxed_heatmap", "PLOT_FORMATS",
           "MAX_MEGAPIXELS", "HIGHLIGHT"]

#: File formats accepted by :func:`save_figure` (from the extension).
PLOT_FORMATS = ("png", "svg", "pdf")
#: Default upper bound on a saved figure's size, in megapixels.
MAX_MEGAPIXELS = 4.0
#: Colour of highlighted nodes and boxes (the Copeland winners in a tournament picture).
HIGHLIGHT = "#f4a259"
_DPI = 120


def new_figure(width: float, height: float, rows: int = 1, cols: int = 1,
               constrained: bool = True) -> tuple[Any, Any]:
    """A matplotlib Figure (Agg canvas, no pyplot) and its ``rows`` × ``cols`` axes array.

    Parameters
    ----------
    width, height : float
        Size in inches.
    rows, cols : int
        Grid of axes.
    constrained : bool
        Constrained layout (legends and labels never overlap; costs a few text layouts).

    Returns
    -------
    (Figure, numpy.ndarray of Axes)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, squeeze=False)


def save_figure(fig: Any, path: str, max_megapixels: float = MAX_MEGAPIXELS) -> None:
    """Save ``fig`` to ``path`` (format from the extension: png, svg, pdf).

    The resolution is at most 120 dpi and is lowered so that the saved image (its tight
    bounding box) stays below ``max_megapixels``.

    Raises
    ------
    DuelboundError
        Unsupported extension, or the file cannot be written (one line).
    """
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        raise DuelboundError(f"cannot plot to {path!r}: use a .png, .svg or .pdf file")
    # from the figure size (no extra draw): the tight bounding box saved is at most the
    # figure plus what sticks out of it, allowed for by a 25 % margin
    width, height = fig.get_size_inches()
    dpi = min(float(_DPI), math.sqrt(max_megapixels * 1e6 / (1.25 * width * height)))
    try:
        fig.savefig(path, bbox_inches="tight", dpi=dpi)
    except OSError as exc:
        raise DuelboundError(f"cannot write {path}: {exc.strerror or exc}") from None


def draw_digraph(ax: Any, G: nx.DiGraph, highlighted: Sequence[int],
                 node_labels: Mapping[int, str], edge_labels: Mapping[tuple[int, int], str],
                 small: bool) -> None:
    """Draw ``G`` on a circle: ``highlighted`` nodes in :data:`HIGHLIGHT`, arrows, labels.

    ``small``: large nodes and fonts (about ten nodes or fewer). ``edge_labels`` may be empty.
    """
    size = 700 if small else 450
    pos = nx.circular_layout(G)
    colors = [HIGHLIGHT if v in highlighted else "#cfd8dc" for v in G.nodes]
    nx.draw_networkx_nodes(G, pos, ax=ax, node_color=colors, node_size=size,
                           edgecolors="#37474f")
    nx.draw_networkx_labels(G, pos, ax=ax, font_size=7 if small else 6, labels=node_labels)
    nx.draw_networkx_edges(G, pos, ax=ax, arrowstyle="-|>", arrowsize=12, node_size=size,
                           connectionstyle="arc3,rad=0.08", edge_color="#546e7a",
                           width=1.0 if small else 0.6)
    if edge_labels:
        nx.draw_networkx_edge_labels(G, pos, ax=ax, font_size=7, label_pos=0.3,
                                     edge_labels=dict(edge_labels))
    ax.set_axis_off()


def draw_boxed_heatmap(ax: Any, A: np.ndarray, boxed: int, ticks: Sequence[int],
                       row_labels: Sequence[str], col_labels: Sequence[str],
                       colorbar_label: str) -> None:
    """Heat map of ``A`` (values in [0, 1]) with its first ``boxed`` rows and columns boxed.

    ``ticks`` are the labelled positions (the same on both axes); the labels of the boxed
    rows are bold in the highlight colour.
    """
    from matplotlib.patches import Rectangle

    n = A.shape[0]
    im = ax.imshow(A, cmap="RdBu_r", vmin=0.0, vmax=1.0, interpolation="nearest")
    for width, height in ((n, boxed), (boxed, n)):
        ax.add_patch(Rectangle((-0.5, -0.5), width, height, fill=False, edgecolor=HIGHLIGHT,
                               linewidth=1.8))
    ax.set_yticks(ticks, row_labels, fontsize=6 if n <= 60 else 5)
    ax.set_xticks(ticks, col_labels, fontsize=5, rotation=90)
    for lab in ax.get_yticklabels()[:boxed]:
        lab.set_color("#c0611a")
        lab.set_fontweight("bold")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label=colorbar_label)
    if ax.figure.get_layout_engine() is None:
        ax.figure.subplots_adjust(left=0.17, right=0.98, bottom=0.1, top=0.92)
