"""Drawing a tournament (matplotlib, headless)."""

from __future__ import annotations

import os

import networkx as nx

from .errors import DuelboundError
from .matrix import PreferenceMatrix
from .structure import beats_graph, copeland_winners, losses

__all__ = ["draw_tournament", "save_figure"]


def save_figure(fig, path: str) -> None:
    """Save ``fig`` to ``path`` (format from the extension: png, svg, pdf)."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in {"png", "svg", "pdf"}:
        raise DuelboundError(f"cannot plot to {path!r}: use a .png, .svg or .pdf file")
    try:
        fig.savefig(path, bbox_inches="tight", dpi=120)
    except OSError as exc:
        raise DuelboundError(f"cannot write {path}: {exc.strerror or exc}") from None


def draw_tournament(M: PreferenceMatrix, path: str | None = None, ax=None):
    """Draw the beats-digraph: Copeland winners highlighted, edges labelled µ_ij.

    Returns the matplotlib Figure; saves it when ``path`` is given.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    G = beats_graph(M)
    winners = set(copeland_winners(M))
    L = losses(M)
    if ax is None:
        fig, ax = plt.subplots(figsize=(1.2 + 0.9 * M.K, 1.2 + 0.9 * M.K))
    else:
        fig = ax.figure
    pos = nx.circular_layout(G)
    colors = ["#f4a259" if v in winners else "#cfd8dc" for v in G.nodes]
    nx.draw_networkx_nodes(G, pos, ax=ax, node_color=colors, node_size=700,
                           edgecolors="#37474f")
    nx.draw_networkx_labels(G, pos, ax=ax,
                            labels={v: f"{v}\nL={L[v]}" for v in G.nodes}, font_size=8)
    nx.draw_networkx_edges(G, pos, ax=ax, arrowstyle="-|>", arrowsize=14, node_size=700,
                           connectionstyle="arc3,rad=0.08", edge_color="#546e7a")
    if M.K <= 12:
        nx.draw_networkx_edge_labels(
            G, pos, ax=ax, font_size=7, label_pos=0.3,
            edge_labels={(i, j): f"{d['mu']:.3g}" for i, j, d in G.edges(data=True)})
    title = (M.name or "tournament") + f": Copeland winners {sorted(winners)}"
    ax.set_title(title, fontsize=9)
    ax.set_axis_off()
    if path is not None:
        save_figure(fig, path)
        plt.close(fig)
    return fig
