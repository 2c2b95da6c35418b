"""simulate(): parallel runs, summaries, JSON, plot and the CLI."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from duelbound.checks.simulate.simulator import run_single, simulate
from duelbound.cli import main
from duelbound.theory import datasets
from duelbound.theory.errors import DuelboundError


def test_simulate_runs_are_replayable_and_summarised():
    M = datasets.load("cyclic")
    res = simulate(M, "d-ts", 5000, runs=3, seed=11, processes=2, progress=False)
    assert res.runs == 3 and len(set(res.run_seeds)) == 3
    finals = []
    for k, s in enumerate(res.run_seeds):
        rec = run_single(M, "d-ts", 5000, s)
        assert np.array_equal(rec.counts, res.records[k].counts)
        finals.append(rec.final_regret["komiyama"])
    assert res.final_regret["komiyama"] == pytest.approx(finals)
    assert res.mean["komiyama"][-1] == pytest.approx(np.mean(finals))
    assert res.std["komiyama"][-1] == pytest.approx(np.std(finals, ddof=1))
    # Serial and parallel give the same runs.
    serial = simulate(M, "d-ts", 5000, runs=3, seed=11, processes=1, progress=False)
    assert np.array_equal(serial.final_regret["zoghi"], res.final_regret["zoghi"])
    json.dumps(res.to_dict())


def test_plot_and_bounds(tmp_path):
    M = datasets.load("cyclic")
    res = simulate(M, "ecw-rmed", 2000, runs=2, seed=0, processes=1, progress=False,
                   bounds=True)
    # C^E* of cyclic, hand-derived in docs/math.md §5: 1/d(0.6, 1/2).
    d06 = 0.6 * np.log(1.2) + 0.4 * np.log(0.8)
    assert res.bounds["C^E*"] == pytest.approx(1 / d06, rel=1e-9)
    # C* (certified, so labelled plainly): 1/(2 d(0.6, 1/2)) + 1/d(0.9, 1/2).
    d09 = 0.9 * np.log(1.8) + 0.1 * np.log(0.2)
    assert res.bounds["C*"] == pytest.approx(1 / (2 * d06) + 1 / d09, rel=1e-9)
    out = tmp_path / "r.png"
    res.plot(str(out))
    assert out.stat().st_size > 0


def test_simulate_bad_runs():
    with pytest.raises(DuelboundError):
        simulate(datasets.load("cyclic"), "uniform", 10, runs=0, seed=0)


def test_cli_simulate_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["simulate", "--example", "multi_winner", "--algorithms", "rucb,uniform",
               "--T", "2e3", "--runs", "2", "--seed", "1", "--workers", "1",
               "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    assert [r["algorithm"] for r in data["results"]] == ["rucb", "uniform"]
    assert data["results"][0]["T"] == 2000
    assert "R(T) mean" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["simulate", "--example", "cyclic", "--algorithms", "nope"],
    ["simulate", "--example", "cyclic", "--T", "1.5"],
])
def test_cli_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        rc = main(argv)
        raise SystemExit(rc)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err


@pytest.mark.parametrize("algorithm", ["uniform", "rucb", "d-ts", "ecw-rmed", "savage", "ccb"])
def test_compiled_runners_release_the_gil(algorithm):
    """The runners are compiled with nogil=True, so another Python thread (a Dask worker's
    event loop, a progress bar) keeps running during a simulation instead of waiting for
    it to end.  Behavioural, not a throughput ratio: a thread that holds the GIL for the
    whole compiled loop leaves another Python thread no bytecode at all in the middle of
    the run, so the spinning thread must have executed at some instant in the middle
    third of the run.  CW-RMED re-takes the GIL for its object-mode LP calls and is not
    tested here."""
    import threading
    import time

    M = datasets.load("cyclic")
    run_single(M, algorithm, 100, 0)  # compile / load the cache outside the window
    T = 10_000
    while run_single(M, algorithm, T, 1).wall_time < 0.6:  # a run of at least 0.6 s
        T *= 3
    span: list[float] = []

    def work() -> None:
        t0 = time.perf_counter()
        run_single(M, algorithm, T, 1)
        span.extend([t0, time.perf_counter()])

    worker = threading.Thread(target=work)
    ticks: list[float] = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    start, end = span
    third = (end - start) / 3
    middle = [t for t in ticks if start + third <= t <= end - third]
    assert middle, f"no progress of another thread during {end - start:.2f} s of {algorithm}"


# -- output paths, feedback, notebooks ---------------------------------------------------------
def test_bad_plot_path_is_refused_before_any_work(tmp_path, capsys):
    """An output path that cannot be written is refused in well under a second, in one line,
    before the matrix is even read (the parser and its imports are built first: the time
    is that of the command, not of Python's start-up)."""
    import time

    from duelbound.cli import build_parser

    build_parser()
    missing = tmp_path / "no" / "such" / "dir" / "x.png"
    t0 = time.perf_counter()
    rc = main(["simulate", "--example", "cyclic", "--T", "1e7", "--runs", "50",
               "--plot", str(missing)])
    elapsed = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert rc == 2 and elapsed < 1.0
    assert err.count("\n") == 1 and "does not exist" in err and "Traceback" not in err
    for argv in (["--plot", str(tmp_path / "x.gif")], ["--json", str(tmp_path)]):
        assert main(["simulate", "--example", "cyclic", *argv]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "unsupported extension" in err[0] and "is a folder" in err[1]


def test_json_is_written_before_a_failing_plot(tmp_path, capsys, monkeypatch):
    import duelbound.checks.simulate.records as records

    def broken(*args, **kwargs):
        raise DuelboundError("cannot write r.png: No space left on device")

    monkeypatch.setattr(records, "plot_results", broken)
    out = tmp_path / "r.json"
    rc = main(["simulate", "--example", "cyclic", "--algorithms", "uniform", "--T", "500",
               "--runs", "2", "--workers", "1", "--quiet", "--json", str(out),
               "--plot", str(tmp_path / "r.png")])
    err = capsys.readouterr().err
    assert rc == 2 and f"the results are in {out}" in err
    assert json.loads(out.read_text())["results"][0]["algorithm"] == "uniform"


def test_json_and_text_name_the_arms():
    from duelbound.theory import PreferenceMatrix

    M = PreferenceMatrix(datasets.load("cyclic").values, name="named",
                         arms=["ada", "bob", "cy", "dee"])
    res = simulate(M, "rucb", 3000, runs=2, seed=0, processes=1, progress=False)
    d = res.to_dict()
    assert d["arms"] == ["ada", "bob", "cy", "dee"]
    assert d["most_played"]["arm"] == 0 and d["most_played"]["name"] == "ada"
    counts = res.to_pandas("counts")
    assert set(counts["arm_i"]) <= set(M.arms)


def test_compile_notice_when_the_cache_is_cold(monkeypatch):
    import io

    import duelbound.checks.simulate.simulator as sim

    M = datasets.load("cyclic")
    sim.run_single(M, "uniform", 10, 0)
    for cached, expected in ((False, sim.COMPILE_NOTICE + "\n"), (True, "")):
        monkeypatch.setattr(sim, "compiled_code_cached", lambda alg, c=cached: c)
        out = io.StringIO()
        sim.warm_up(M, "uniform", stream=out)
        assert out.getvalue() == expected
    out = io.StringIO()
    monkeypatch.setattr(sim, "compiled_code_cached", lambda alg: False)
    sim.warm_up(M, "uniform", stream=out, notice=False)
    assert out.getvalue() == ""
    # the real prediction: the runner was just compiled or loaded in this process
    monkeypatch.undo()
    assert sim.compiled_code_cached("uniform") is True


@pytest.mark.parametrize("index, expected", [
    ({}, False), ({("sig",): "file"}, True), (EOFError(), None),
    (pickle.UnpicklingError(), None), (PermissionError(), None), (None, None)])
def test_cache_prediction_reads_the_index_or_says_it_cannot(monkeypatch, index, expected):
    # a runner not compiled in this process: the answer comes from numba's index file; a
    # truncated, corrupt or unreadable index (or internals renamed: no _cache) is None
    from types import SimpleNamespace

    import duelbound.checks.simulate.simulator as sim

    def load():
        if isinstance(index, BaseException):
            raise index
        return index

    cache = None if index is None else SimpleNamespace(_cache_file=SimpleNamespace(
        _load_index=load))
    runner = SimpleNamespace(signatures=[], _cache=cache)
    monkeypatch.setattr(sim, "_dispatcher", lambda algorithm: runner)
    assert sim.compiled_code_cached("uniform") is expected


def test_progress_follows_quiet_progress_and_the_terminal(capsys):
    from duelbound.checks.simulate.simulator import feedback_enabled

    assert feedback_enabled(None) is False  # pytest's stderr is not a terminal
    assert feedback_enabled(True) is True and feedback_enabled(False) is False
    argv = ["simulate", "--example", "cyclic", "--algorithms", "uniform", "--T", "300",
            "--runs", "2", "--workers", "1"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv, "--progress"]) == 0
    err = capsys.readouterr().err
    assert "600/600" in err and "2/2 runs" in err  # duels of both runs, and the runs
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_result_repr_html_and_pandas():
    pd = pytest.importorskip("pandas")
    res = simulate(datasets.load("cyclic"), "ecw-rmed", 2000, runs=3, seed=0, processes=1,
                   progress=False)
    assert len(repr(res)) < 300 and "ecw-rmed (alpha=3, beta=0.01" in repr(res)
    assert len(repr(res.records[0])) < 200
    html = res._repr_html_()
    assert len(html.encode()) < 5000 and html.startswith("<table>")
    assert "| convention |" in res._repr_markdown_()
    regret = res.to_pandas()
    assert isinstance(regret, pd.DataFrame)
    n_cp = len(res.checkpoints)
    assert len(regret) == 3 * n_cp * 3  # runs x checkpoints x conventions
    final = res.to_pandas("final")
    mine = final[final.convention == "komiyama"].sort_values("run")["regret"].to_numpy()
    assert np.array_equal(mine, res.final_regret["komiyama"])
    with pytest.raises(DuelboundError, match="unknown kind"):
        res.to_pandas("nope")


def test_to_pandas_without_pandas_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    res = simulate(datasets.load("cyclic"), "uniform", 100, runs=1, seed=0, progress=False)
    with pytest.raises(DuelboundError, match=r"pip install 'duelbound\[pandas\]'"):
        res.to_pandas()


def test_claims_report_in_notebooks_and_pandas():
    pd = pytest.importorskip("pandas")
    from duelbound.checks.claims.catalogue import ClaimResult, ClaimsReport

    results = [ClaimResult(f"c{k}", "[K16] Lemma 1", "x <= y", "<=", "holds", 50, "holds", 0.5)
               for k in range(40)]
    report = ClaimsReport(50, 0, 3, 6, results)
    assert len(repr(report)) < 200 and "holds=40" in repr(report)
    html = report._repr_html_()
    assert len(html.encode()) < 5000 and "10 more rows" in html
    df = report.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 40 and set(df.status) == {"holds"}


def test_check_output_path_cases(tmp_path, monkeypatch):
    import os

    from duelbound.cli.common import PLOT_EXTENSIONS, check_output_path

    check_output_path(None, PLOT_EXTENSIONS)
    check_output_path("-", None, "--json")
    check_output_path(str(tmp_path / "ok.svg"), PLOT_EXTENSIONS, "--plot")
    existing = tmp_path / "old.json"
    existing.write_text("{}")
    check_output_path(str(existing), None, "--json")
    real = os.access
    for blocked, message in ((str(tmp_path), "is not writable"),
                             (str(existing), "file is not writable")):
        monkeypatch.setattr(os, "access",
                            lambda p, mode, b=blocked: False if str(p) == b else real(p, mode))
        target = existing if blocked == str(existing) else tmp_path / "new.json"
        with pytest.raises(DuelboundError, match=message):
            check_output_path(str(target), None, "--json")


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ctrl_c_keeps_finished_algorithms_and_exits_130(tmp_path, processes):
    """A real SIGINT to `duelbound simulate` while CW-RMED runs (K = 30: minutes): the run
    stops, uniform's finished results are in --json and --plot, the JSON and a one-line
    note name what was interrupted, the exit status is 130 and no worker is left."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from duelbound.theory import generators

    pytest.importorskip("highspy")
    run_single(datasets.load("cyclic"), "cw-rmed", 50, 0)  # compiled: the child loads it
    mat = tmp_path / f"k30-{processes}.txt"
    np.savetxt(mat, generators.random_matrix(30, seed=0).values)
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    # SIGINT's usual handler even when pytest runs as a background job (SIGINT ignored)
    start = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             "from duelbound.cli import main; raise SystemExit(main(sys.argv[1:]))")
    proc = subprocess.Popen(
        [sys.executable, "-c", start, "simulate", str(mat), "--algorithms", "uniform,cw-rmed",
         "--T", "1e6", "--runs", "2", "--workers", processes, "--json", str(out),
         "--plot", str(png)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = ""
    while not first.startswith("uniform"):  # uniform finished: cw-rmed starts
        first = proc.stdout.readline()
        assert first or proc.poll() is None, proc.stderr.read()
    time.sleep(3.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    note = [line for line in stderr.splitlines() if "interrupted" in line]
    assert len(note) == 1 and "interrupted during cw-rmed" in note[0], stderr
    assert "finished: uniform" in note[0] and str(out) in note[0]
    data = json.loads(out.read_text())
    assert [r["algorithm"] for r in data["results"]] == ["uniform"]
    assert data["interrupted"]["algorithm"] == "cw-rmed"
    assert data["interrupted"]["runs_finished"] < 2
    # 0 duels if the signal came while CW-RMED was still compiling (a cold numba cache)
    assert 0 <= data["interrupted"]["duels_done"] < data["interrupted"]["duels"]
    assert png.stat().st_size > 0
    mark = str(out).encode()
    left = []
    for entry in os.scandir("/proc"):
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                if entry.name.isdigit() and mark in fh.read():
                    left.append(entry.name)
        except OSError:
            pass
    assert not left
