"""Options shared by several subcommands give one-line usage errors, never a traceback."""

from __future__ import annotations

import pytest

from duelbound.cli import main

COMMANDS = [
    ["simulate", "--example", "cyclic", "--algorithms", "uniform"],
    ["sweep", "--example", "cyclic", "--algorithms", "uniform", "--store", "unused.sqlite"],
    ["verify", "uniform"],
    ["table", "--example", "cyclic"],
]


@pytest.mark.parametrize("bad", ["inf", "nan", "0", "-3", "1.5", "abc"])
@pytest.mark.parametrize("argv", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_bad_horizon_is_one_line_usage_error(capsys, argv, bad):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--T", bad])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--T" in err and "Traceback" not in err


# -- one dialect: --json [FILE], --workers, --quiet/--progress, safe output paths ----------

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

import numpy as np  # noqa: E402

from duelbound.cli import common  # noqa: E402
from duelbound.theory.errors import DuelboundError  # noqa: E402

JSON_COMMANDS = [
    ["structure", "--example", "cyclic"],
    ["datasets", "cyclic"],
    ["bounds", "--example", "cyclic", "--no-certify"],
    ["simulate", "--example", "cyclic", "--algorithms", "uniform", "--T", "300", "--runs", "2",
     "--workers", "1"],
]


def _timeless(d):
    """``d`` without the solver's timings (the only part that differs between runs)."""
    if isinstance(d, dict):
        return {k: _timeless(v) for k, v in d.items() if k not in ("stats", "wall_time", "time")}
    return [_timeless(v) for v in d] if isinstance(d, list) else d


@pytest.mark.parametrize("argv", JSON_COMMANDS, ids=[c[0] for c in JSON_COMMANDS])
def test_json_bare_prints_json_and_json_file_keeps_the_text(argv, tmp_path, capsys):
    assert main([*argv, "--json"]) == 0
    bare = _timeless(json.loads(capsys.readouterr().out))   # stdout is one JSON document
    assert main([*argv, "--json", "-"]) == 0
    assert _timeless(json.loads(capsys.readouterr().out)) == bare
    target = tmp_path / "out.json"
    assert main([*argv, "--json", str(target)]) == 0
    text = capsys.readouterr().out
    assert text.strip() and not text.lstrip().startswith("{")   # the text report
    assert _timeless(json.loads(target.read_text())) == bare
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".duelbound-")]


def test_json_never_overwrites_an_input_or_a_non_json_file(tmp_path, capsys, dataset_dir):
    matrix = tmp_path / "m.txt"
    matrix.write_text((dataset_dir / "cyclic.txt").read_text())
    before = matrix.read_text()
    # `--json m.txt` takes m.txt as the JSON file: refused, the matrix untouched
    assert main(["structure", "--json", str(matrix)]) == 2
    assert "not .json" in capsys.readouterr().err and matrix.read_text() == before
    as_json = tmp_path / "m.json"
    as_json.write_text(json.dumps({"matrix": [[0.5, 0.6], [0.4, 0.5]]}))
    assert main(["structure", str(as_json), "--json", str(as_json)]) == 2
    assert "also given as an input" in capsys.readouterr().err
    assert json.loads(as_json.read_text()) == {"matrix": [[0.5, 0.6], [0.4, 0.5]]}


def test_output_paths_refused_before_any_work(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    for path, message in (("", "empty"), ("  ", "empty"), (str(link), "symbolic link"),
                          (str(tmp_path), "is a folder")):
        with pytest.raises(DuelboundError, match=message):
            common.check_output_path(path, option="--json")
    with pytest.raises(DuelboundError, match="symbolic link"):
        common.write_atomically(str(link), "x")
    assert os.path.islink(link) and real.read_text() == "{}"   # the link is never replaced


def test_write_atomically_adds_one_lf_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "notes.txt"
    common.write_atomically(str(target), "a\nb")
    assert target.read_bytes() == b"a\nb\n"
    common.write_atomically(str(target), "c\n")
    assert target.read_bytes() == b"c\n" and os.listdir(tmp_path) == ["notes.txt"]


def _parser(*adders) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    for add in adders:
        add(p)
    return p


def test_old_spellings_are_hidden_aliases_that_warn(capsys):
    p = _parser(common.add_workers_option, common.add_feedback_arguments)
    args = p.parse_args(["--processes", "3", "--no-progress"])
    assert args.workers == 3 and args.quiet and common.feedback(args) is False
    err = capsys.readouterr().err
    assert "--processes is deprecated" in err and "--no-progress is deprecated" in err
    assert "--processes" not in p.format_help() and "--no-progress" not in p.format_help()
    args = p.parse_args(["--workers", "2", "--progress"])
    assert args.workers == 2 and common.feedback(args) is True
    assert common.feedback(p.parse_args([]), default=True) is True
    assert capsys.readouterr().err == ""
    with pytest.raises(SystemExit):
        p.parse_args(["--workers", "0"])
    with pytest.raises(SystemExit):
        p.parse_args(["--quiet", "--progress"])


@pytest.mark.parametrize("command", ["bounds", "sweep", "table", "simulate", "verify"])
def test_every_command_takes_workers_and_quiet(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--workers" in out and "--quiet" in out and "--progress" in out


def test_cite_and_sweep_report_do_not_import_the_table_command():
    import ast
    from pathlib import Path

    import duelbound.cli as cli

    for name in ("cite.py", "sweep_report.py"):
        tree = ast.parse((Path(cli.__file__).parent / name).read_text())
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "table" not in modules, name


def test_cite_bib_is_written_atomically(tmp_path, capsys):
    bib = tmp_path / "refs.bib"
    assert main(["cite", "--bib", str(bib)]) == 0
    assert bib.read_text().lstrip().startswith(("@", "%"))
    link = tmp_path / "l.bib"
    link.symlink_to(bib)
    assert main(["cite", "--bib", str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err


# -- simulate and verify speak the dialect too ------------------------------------------

def test_simulate_processes_is_an_alias_of_workers_that_warns(capsys):
    argv = ["simulate", "--example", "cyclic", "--algorithms", "uniform", "--T", "200",
            "--runs", "2", "--quiet"]
    assert main([*argv, "--processes", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "--processes is deprecated" in err and "--workers" in err
    assert json.loads(out)["results"][0]["runs"] == 2
    with pytest.raises(SystemExit) as info:
        main([*argv, "--workers", "0"])
    assert info.value.code == 2


def _verdicts(report: dict) -> list:
    return [(m["name"], [(c["name"], c["verdict"]) for c in m["checks"]])
            for m in report["matrices"]]


def test_verify_json_bare_prints_json_and_json_file_keeps_the_text(tmp_path, capsys):
    argv = ["verify", "uniform", "--only", "cyclic", "--T", "200", "--runs", "1",
            "--replay", "1", "--quiet"]
    code = main([*argv, "--json"])
    bare = json.loads(capsys.readouterr().out)   # stdout is one JSON document
    target = tmp_path / "r.json"
    assert main([*argv, "--json", str(target)]) == code
    text = capsys.readouterr().out
    assert "overall:" in text and not text.lstrip().startswith("{")
    assert _verdicts(json.loads(target.read_text())) == _verdicts(bare)
    assert [m["name"] for m in bare["matrices"]] == ["cyclic"]


@pytest.fixture
def verify_suite(monkeypatch):
    """verify's command line -> the names and matrices it would judge (no run)."""
    from duelbound.cli import verify as cli

    seen = {}

    def fake(spec, mats, **kw):
        seen["mats"] = mats
        raise SystemExit(0)

    monkeypatch.setattr("duelbound.checks.verify.harness.verify_algorithm", fake)

    def suite(*argv):
        p = argparse.ArgumentParser()
        cli.add_arguments(p)
        with pytest.raises(SystemExit):
            cli.run(p.parse_args(list(argv)))
        return seen.pop("mats")
    return suite


def test_verify_reads_matrices_like_every_other_command(verify_suite, tmp_path, dataset_dir):
    default = ["cyclic", "multi_winner", "unique_copeland"]
    mine = tmp_path / "mine.txt"
    mine.write_text((dataset_dir / "cyclic.txt").read_text())
    counts = tmp_path / "wins.csv"
    counts.write_text("0,3,1\n1,0,4\n2,1,0\n")
    assert [m.name for m in verify_suite("d-ts", str(mine))] == [*default, "mine"]
    assert [m.name for m in verify_suite("d-ts", "--example", "mslr5")] == [*default, "mslr5"]
    got = verify_suite("d-ts", "--counts", str(counts), "--name", "w")
    assert [m.name for m in got] == [*default, "w"]
    # the plug-in estimate W_ij / (W_ij + W_ji), by hand
    expected = [[0.5, 3 / 4, 1 / 3], [1 / 4, 0.5, 4 / 5], [2 / 3, 1 / 5, 0.5]]
    assert np.allclose(got[-1].values, expected, rtol=0, atol=1e-12)
    got = verify_suite("d-ts", "--only", "cyclic", "--counts", str(counts))
    assert [m.name for m in got] == ["cyclic", "wins"]
    # --matrices keeps adding to the suite; --exec takes its positionals as matrix FILEs
    assert [m.name for m in verify_suite("d-ts", "--matrices", str(mine))] == [*default, "mine"]
    assert [m.name for m in verify_suite("--exec", "./x", "--isolation", "process",
                                         "--only", str(mine))] == ["mine"]


@pytest.mark.parametrize("content, message", [
    ("0,0,1\n0,0,1\n1,1,0\n", "no comparisons of (0,1)"),   # arms 0 and 1 never met
    ("0,2,1\n2,0,1\n1,1,0\n", "won equally often"),        # ties, no --break-ties
])
def test_verify_refuses_counts_without_an_estimate_in_one_line(tmp_path, capsys, content,
                                                               message):
    counts = tmp_path / "wins.csv"
    counts.write_text(content)
    assert main(["verify", "d-ts", "--counts", str(counts), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err
