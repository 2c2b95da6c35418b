"""Drawing a tournament and saving figures (matplotlib, headless, size-capped).

Up to :data:`GRAPH_MAX_K` arms the tournament is drawn as its beats-digraph; beyond that a
graph is unreadable, and :func:`draw_tournament` draws a heat map of µ with the arms
ordered by Copeland score and the Copeland winners boxed.  Figures are built without
pyplot (no global figure registry, no backend switch, so notebooks keep their backend)
and :func:`save_figure` lowers the resolution so that an image never exceeds a few
megapixels whatever K.
"""

from __future__ import annotations

import math
import os
from typing import Any

import networkx as nx
import numpy as np

from .errors import DuelboundError
from .matrix import PreferenceMatrix
from .tournament import beats_graph, copeland_winners, losses

__all__ = ["draw_tournament", "save_figure", "new_figure", "GRAPH_MAX_K", "PLOT_FORMATS",
           "MAX_MEGAPIXELS"]

#: Largest K drawn as a graph; larger tournaments are drawn as a heat map.
GRAPH_MAX_K = 20
#: File formats accepted by :func:`save_figure` (from the extension).
PLOT_FORMATS = ("png", "svg", "pdf")
#: Default upper bound on a saved figure's size, in megapixels.
MAX_MEGAPIXELS = 4.0
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


def _short(name: str, width: int = 12) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _winners_text(M: PreferenceMatrix, winners: list[int], most: int = 6) -> str:
    names = [M.label(w) for w in winners[:most]]
    more = f" +{len(winners) - most} more" if len(winners) > most else ""
    return ", ".join(names) + more


def draw_tournament(M: PreferenceMatrix, path: str | None = None, ax: Any = None) -> Any:
    """Draw the tournament of ``M``: its graph up to :data:`GRAPH_MAX_K` arms, else a heat map.

    Graph: the beats-digraph on a circle, Copeland winners highlighted, nodes labelled with
    the arm's name (or index) and its number of losses L, edges labelled µ_ij up to K = 12.
    Heat map: µ_ij with rows and columns ordered by Copeland score (fewest losses first),
    the Copeland winners' rows and columns boxed and their names in the title.

    Parameters
    ----------
    M : PreferenceMatrix
    path : str, optional
        Save there (``.png``, ``.svg``, ``.pdf``; at most :data:`MAX_MEGAPIXELS`).
    ax : matplotlib Axes, optional
        Draw there instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        side = min(1.2 + 0.9 * M.K, 9.0) if M.K <= GRAPH_MAX_K else 8.5
        fig, axes = new_figure(side * (1.12 if M.K > GRAPH_MAX_K else 1.0), side,
                               constrained=M.K <= GRAPH_MAX_K)
        ax = axes[0, 0]
    fig = ax.figure
    (_draw_graph if M.K <= GRAPH_MAX_K else _draw_heatmap)(M, ax)
    if path is not None:
        save_figure(fig, path)
    return fig


def _draw_graph(M: PreferenceMatrix, ax: Any) -> None:
    G = beats_graph(M)
    winners = copeland_winners(M)
    L = losses(M)
    size = 700 if M.K <= 10 else 450
    pos = nx.circular_layout(G)
    colors = ["#f4a259" if v in winners else "#cfd8dc" for v in G.nodes]
    nx.draw_networkx_nodes(G, pos, ax=ax, node_color=colors, node_size=size,
                           edgecolors="#37474f")
    nx.draw_networkx_labels(G, pos, ax=ax, font_size=7 if M.K <= 10 else 6,
                            labels={v: f"{_short(M.label(v))}\nL={L[v]}" for v in G.nodes})
    nx.draw_networkx_edges(G, pos, ax=ax, arrowstyle="-|>", arrowsize=12, node_size=size,
                           connectionstyle="arc3,rad=0.08", edge_color="#546e7a",
                           width=1.0 if M.K <= 10 else 0.6)
    if M.K <= 12:
        nx.draw_networkx_edge_labels(
            G, pos, ax=ax, font_size=7, label_pos=0.3,
            edge_labels={(i, j): f"{d['mu']:.3g}" for i, j, d in G.edges(data=True)})
    ax.set_title(f"{M.name or 'tournament'} (K = {M.K}): arrow i → j when µ_ij > 1/2; "
                 f"Copeland winners (orange) {_winners_text(M, winners)}", fontsize=9,
                 wrap=True)
    ax.set_axis_off()


def _draw_heatmap(M: PreferenceMatrix, ax: Any) -> None:
    from matplotlib.patches import Rectangle

    L = losses(M)
    order = sorted(range(M.K), key=lambda i: (L[i], i))  # Copeland score K-1-L, best first
    winners = copeland_winners(M)
    w = len(winners)
    A = np.asarray(M.values)[np.ix_(order, order)]
    im = ax.imshow(A, cmap="RdBu_r", vmin=0.0, vmax=1.0, interpolation="nearest")
    for xy, (width, height) in (((-0.5, -0.5), (M.K, w)), ((-0.5, -0.5), (w, M.K))):
        ax.add_patch(Rectangle(xy, width, height, fill=False, edgecolor="#f4a259",
                               linewidth=1.8))
    step = max(1, math.ceil(M.K / 25))  # ~25 labels per axis: text layout dominates the time
    ticks = sorted(set(range(0, M.K, step)) | set(range(w)))
    labels = [f"{_short(M.label(order[k]))} (L={L[order[k]]})" for k in ticks]
    ax.set_yticks(ticks, labels, fontsize=6 if M.K <= 60 else 5)
    ax.set_xticks(ticks, [_short(M.label(order[k])) for k in ticks], fontsize=5, rotation=90)
    for lab in ax.get_yticklabels()[:w]:
        lab.set_color("#c0611a")
        lab.set_fontweight("bold")
    shown = "" if step == 1 else f" (every {step}th arm labelled)"
    ax.set_title(f"{M.name or 'tournament'} (K = {M.K}): µ_ij, arms by Copeland score "
                 f"(fewest losses L first){shown}\nCopeland winners (boxed, orange): "
                 f"{_winners_text(M, winners)}", fontsize=9)
    ax.set_xlabel("column arm j")
    ax.set_ylabel("row arm i")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="µ_ij = P(row arm i beats column arm j)")
    if ax.figure.get_layout_engine() is None:
        ax.figure.subplots_adjust(left=0.17, right=0.98, bottom=0.1, top=0.92)
