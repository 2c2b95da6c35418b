"""Bundled datasets: the published numbers, their known properties, and the tie message."""

from __future__ import annotations

import json

import numpy as np
import pytest

from duelbound.cli import main
from duelbound.theory import TieError, datasets
from duelbound.theory import tournament as s


@pytest.mark.parametrize("name", datasets.names())
def test_known_properties_hold(name):
    d = datasets.get(name)
    M = d.load(break_ties=1e-3 if d.ties else None)
    assert s.condorcet_winner(M) == d.condorcet_winner
    assert s.copeland_winners(M) == list(d.copeland_winners)
    assert M.K == d.K and M.name == name
    assert (d.citation == "ours") == (not d.published)


def test_published_numbers_as_printed():
    # Komiyama et al. (2016), Table 2, typed from the paper
    cyc = datasets.load("cyclic").values
    assert cyc[0].tolist() == [0.5, 0.6, 0.6, 0.6]
    assert cyc[1, 2] == cyc[2, 3] == cyc[3, 1] == 0.9
    assert s.losses(datasets.load("cyclic")).tolist() == [0, 2, 2, 2]
    mslr = datasets.load("mslr5").values
    assert mslr[0, 1] == 0.53519466 and mslr[3, 4] == 0.50999465
    assert np.allclose(mslr + mslr.T, 1.0, atol=1e-12)
    # arXiv: a total order 0 > 1 > ... with the printed tie between arms 3 and 5
    assert datasets.get("arxiv6").rows[3][5] == 0.5 == datasets.get("arxiv6").rows[5][3]


def test_tie_is_announced_with_the_remedy():
    with pytest.raises(TieError) as err:
        datasets.load("arxiv6")
    assert err.value.entries == [(3, 5)] and "break_ties" in str(err.value)
    M = datasets.load("arxiv6", break_ties=1e-3)
    assert M.broken_ties == ((3, 5),) and M[3, 5] == 0.501


def test_examples_module_is_the_same_registry():
    assert datasets.names() == datasets.names()
    assert datasets.load("cyclic") == datasets.load("cyclic")


def test_unknown_name_lists_the_datasets():
    with pytest.raises(KeyError, match="cyclic"):
        datasets.load("nope")


def test_cli_lists_and_shows(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in datasets.names():
        assert name in out
    assert "Yue & Joachims" in out
    assert main(["datasets", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {d["name"] for d in data} == set(datasets.names())
    assert main(["datasets", "arxiv6"]) == 0
    out = capsys.readouterr().out
    assert "tie" in out and "--break-ties" in out and "0.61" in out


def test_cli_example_with_tie_needs_break_ties(capsys):
    assert main(["structure", "--example", "arxiv6"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--break-ties" in err
    assert main(["structure", "--example", "arxiv6", "--break-ties", "1e-3"]) == 0


def test_cite_keys_resolve_and_stated_gap_holds():
    from importlib import resources

    bib = resources.files("duelbound.solvers").joinpath("references.bib").read_text()
    for name in datasets.names():
        key = datasets.get(name).cite_key
        assert key is None or f"{{{key}," in bib, (name, key)
    # mslr5's note states its smallest gap: |µ_34 − 1/2| = 0.00999465 (typed from the paper)
    gaps = np.abs(datasets.load("mslr5").values - 0.5) + np.eye(5)
    assert np.unravel_index(gaps.argmin(), gaps.shape) in ((3, 4), (4, 3))
    assert gaps.min() == pytest.approx(0.00999465, abs=1e-12)
