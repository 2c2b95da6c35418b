"""Plots stay readable and small whatever K or the number of algorithms."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from duelbound.checks.simulate.records import BAND, Curve, regret_figure
from duelbound.cli import main
from duelbound.theory import datasets
from duelbound.theory.draw import GRAPH_MAX_K, draw_tournament
from duelbound.theory.generators import random_matrix

MAX_PIXELS = 4e6


def _pixels(path) -> int:
    with Image.open(path) as im:
        return im.size[0] * im.size[1]


def _texts(fig) -> str:
    return " ".join(t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")))


@pytest.mark.parametrize("K", [4, 16])
def test_small_tournaments_are_graphs_with_named_arms(K, tmp_path):
    M = datasets.load("cyclic") if K == 4 else random_matrix(K, seed=0, name="r16")
    if K == 4:
        from duelbound.theory import PreferenceMatrix

        M = PreferenceMatrix(M.values, name="cyclic", arms=["ada", "bob", "cy", "dee"])
    fig = draw_tournament(M, str(tmp_path / "t.png"))
    assert not fig.axes[0].images  # a graph, not a heat map
    text = _texts(fig)
    assert "Copeland winners" in text and M.label(0) in text
    assert _pixels(tmp_path / "t.png") < MAX_PIXELS


def test_k200_tournament_is_a_small_heat_map(tmp_path):
    """A heat map (not a 200-node graph) of < 4 megapixels.  Its drawing time (about 1 s
    of CPU) is measured by benchmarks, not asserted here."""
    M = random_matrix(200, seed=0, name="r200")
    out = tmp_path / "t200.png"
    assert main(["structure", "--example", "cyclic", "--plot", str(tmp_path / "t4.png")]) == 0
    fig = draw_tournament(M, str(out))
    assert _pixels(out) < MAX_PIXELS
    ax = fig.axes[0]
    assert len(ax.images) == 1 and ax.images[0].get_array().shape == (200, 200)
    assert "Copeland winners (boxed" in ax.get_title()
    # rows ordered by Copeland score: the winners' row sums (wins) come first
    from duelbound.theory.tournament import copeland_winners, losses

    L = losses(M)
    shown = [int(t.get_text().split(" ")[0]) for t in ax.get_yticklabels()]
    assert shown[: len(copeland_winners(M))] == copeland_winners(M)
    assert list(L[shown]) == sorted(L[shown])
    assert M.K > GRAPH_MAX_K


def _curves(n: int, runs: int = 5) -> list[Curve]:
    rng = np.random.default_rng(0)
    t = np.unique(np.geomspace(1, 1e5, 60).astype(int))
    return [Curve.from_runs(f"alg{k} (alpha={0.5 + k / 10:.2g})", t,
                            np.cumsum(rng.random((runs, t.size)), axis=1) * (k + 1))
            for k in range(n)]


def test_ten_algorithms_log_y_and_labelled_band(tmp_path):
    out = tmp_path / "r.png"
    fig = regret_figure([("ten", _curves(10), {"C*": 27.5, "C^E*": 49.7})], str(out),
                        log_y=True)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    lo, hi = (round(100 * q) for q in BAND)
    assert f"shaded: {lo}–{hi} % quantiles of R(t) over the runs" in labels
    assert "alg9 (alpha=1.4): mean of 5 runs" in labels
    assert any(lab.startswith("C*·log t") for lab in labels)
    assert any(lab.startswith("C^E*·log t") for lab in labels)
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    assert _pixels(out) < MAX_PIXELS


def test_many_panels_stay_below_the_pixel_cap(tmp_path):
    out = tmp_path / "p.png"
    panels = [(f"m{k}", _curves(3), {"C*": 10.0}) for k in range(12)]
    regret_figure(panels, str(out))
    assert _pixels(out) < MAX_PIXELS


def test_simulate_plot_from_the_cli(tmp_path):
    out = tmp_path / "sim.png"
    assert main(["simulate", "--example", "cyclic", "--algorithms", "uniform,rucb",
                 "--T", "2000", "--runs", "3", "--processes", "1", "--quiet",
                 "--plot", str(out), "--log-y"]) == 0
    assert 0 < _pixels(out) < MAX_PIXELS
