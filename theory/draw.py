"""Drawing a tournament: its beats-digraph, or a heat map of µ beyond GRAPH_MAX_K arms.

Up to :data:`GRAPH_MAX_K` arms the tournament is drawn as its beats-digraph; beyond that a
graph is unreadable, and :func:`draw_tournament` draws a heat map of µ with the arms
ordered by Copeland score and the Copeland winners boxed.  What is drawn is
decided here (from the tournament); how is the ground floor's :mod:`duelbound.plots`
(matplotlib without pyplot, size-capped saves), whose :func:`save_figure` and
:func:`new_figure` are re-exported.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..plots import (
    MAX_MEGAPIXELS,
    PLOT_FORMATS,
    draw_boxed_heatmap,
    draw_digraph,
    new_figure,
    save_figure,
)
from .matrix import PreferenceMatrix
from .tournament import beats_graph, copeland_winners, losses

__all__ = ["draw_tournament", "save_figure", "new_figure", "GRAPH_MAX_K", "PLOT_FORMATS",
           "MAX_MEGAPIXELS"]

#: Largest K drawn as a graph; larger tournaments are drawn as a heat map.
GRAPH_MAX_K = 20


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
    edges = ({(i, j): f"{d['mu']:.3g}" for i, j, d in G.edges(data=True)} if M.K <= 12
             else {})
    draw_digraph(ax, G, winners, {v: f"{_short(M.label(v))}\nL={L[v]}" for v in G.nodes},
                 edges, small=M.K <= 10)
    ax.set_title(f"{M.name or 'tournament'} (K = {M.K}): arrow i → j when µ_ij > 1/2; "
                 f"Copeland winners (orange) {_winners_text(M, winners)}", fontsize=9,
                 wrap=True)


def _draw_heatmap(M: PreferenceMatrix, ax: Any) -> None:
    L = losses(M)
    order = sorted(range(M.K), key=lambda i: (L[i], i))  # Copeland score K-1-L, best first
    winners = copeland_winners(M)
    w = len(winners)
    step = max(1, math.ceil(M.K / 25))  # ~25 labels per axis: text layout dominates the time
    ticks = sorted(set(range(0, M.K, step)) | set(range(w)))
    draw_boxed_heatmap(ax, np.asarray(M.values)[np.ix_(order, order)], w, ticks,
                       [f"{_short(M.label(order[k]))} (L={L[order[k]]})" for k in ticks],
                       [_short(M.label(order[k])) for k in ticks],
                       "µ_ij = P(row arm i beats column arm j)")
    shown = "" if step == 1 else f" (every {step}th arm labelled)"
    ax.set_title(f"{M.name or 'tournament'} (K = {M.K}): µ_ij, arms by Copeland score "
                 f"(fewest losses L first){shown}\nCopeland winners (boxed, orange): "
                 f"{_winners_text(M, winners)}", fontsize=9)
    ax.set_xlabel("column arm j")
    ax.set_ylabel("row arm i")
