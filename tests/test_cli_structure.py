"""`duelbound structure` end to end: text, JSON and the tournament plot."""

from __future__ import annotations

import json

from duelbound.cli import main


def test_structure_text_and_json_agree(capsys, dataset_dir):
    assert main(["structure", "--example", "cyclic"]) == 0
    text = capsys.readouterr().out
    assert "[0, 2, 2, 2]" in text and "Condorcet winner  0" in text
    assert main(["structure", str(dataset_dir / "cyclic.txt"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["losses"] == [0, 2, 2, 2] and data["copeland_winners"] == [0]
    assert data["three_cycles"] == 1 and data["top_cycle"] == [0]


def test_structure_reports_broken_ties(capsys, dataset_dir):
    assert main(["structure", str(dataset_dir / "arxiv6.txt"), "--break-ties", "1e-3"]) == 0
    out = capsys.readouterr().out
    assert "perturbed" in out and "broken ties       (3,5)" in out


def test_structure_plot_png_and_svg(tmp_path, capsys):
    png, svg = tmp_path / "t.png", tmp_path / "t.svg"
    assert main(["structure", "--example", "multi_winner", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["structure", "--example", "cyclic", "--plot", str(svg)]) == 0
    assert "<svg" in svg.read_text()[:2000]
    capsys.readouterr()
    assert main(["structure", "--example", "cyclic", "--plot", str(tmp_path / "t.bmp")]) == 2
    assert "png" in capsys.readouterr().err


def test_help_is_useful(capsys):
    import pytest

    for argv in (["--help"], ["structure", "--help"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 0
    out = capsys.readouterr().out
    assert "structure" in out and "--example" in out and "--break-ties" in out
