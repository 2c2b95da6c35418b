"""simulate(): parallel runs, summaries, JSON, plot and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from duelbound.checks.simulator import run_single, simulate
from duelbound.cli import main
from duelbound.theory import examples
from duelbound.theory.errors import DuelboundError


def test_simulate_runs_are_replayable_and_summarised():
    M = examples.load("cyclic")
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
    M = examples.load("cyclic")
    res = simulate(M, "ecw-rmed", 2000, runs=2, seed=0, processes=1, progress=False,
                   bounds=True)
    # C^E* of cyclic, hand-derived in SPEC §2: 1/d(0.6, 1/2).
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
        simulate(examples.load("cyclic"), "uniform", 10, runs=0, seed=0)


def test_cli_simulate_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["simulate", "--example", "multi_winner", "--algorithms", "rucb,uniform",
               "--T", "2e3", "--runs", "2", "--seed", "1", "--processes", "1",
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
    it to end (measured: it halves the idle time between two tasks of a sweep worker).
    CW-RMED re-takes the GIL for its object-mode LP calls and is not tested here."""
    import threading
    import time

    M = examples.load("cyclic")
    run_single(M, algorithm, 100, 0)  # compile / load the cache outside the window

    def spin(seconds: float) -> int:
        n, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            n += 1
        return n

    solo = spin(0.1)
    T = 10_000
    while run_single(M, algorithm, T, 1).wall_time < 0.3:  # a run of at least 0.3 s
        T *= 3
    started = threading.Event()
    worker = threading.Thread(target=lambda: (started.set(), run_single(M, algorithm, T, 1)))
    worker.start()
    started.wait()
    t0, n = time.perf_counter(), 0
    while worker.is_alive():
        n += spin(0.01)
    worker.join()
    elapsed = time.perf_counter() - t0
    # holding the GIL would leave this thread only the run's Python set-up and tear-down
    assert n / elapsed >= 0.25 * solo / 0.1
