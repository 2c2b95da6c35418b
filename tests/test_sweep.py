"""Sweeps on Dask: resumable after SIGKILL, failures recorded, an external cluster gives the
same results as the local default, readers see committed rows only.

Cluster start-up dominates the cost, so one uninterrupted local sweep (``reference``) and one
external ``dask scheduler`` + two ``dask worker`` processes (``external_cluster``) are shared
by the module.  The plugin algorithms live in ``tests/sweep_plugins.py``; every worker gets
``tests/`` on its path.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from duelbound.checks.simulate.simulator import run_single
from duelbound.checks.sweep.runner import bounds_sweep, derive_seed, report_table, summarise, sweep
from duelbound.checks.sweep.store import SweepStore
from duelbound.cli import main
from duelbound.solvers.tables import render
from duelbound.theory import DuelboundError, PreferenceMatrix, datasets

TESTS = Path(__file__).resolve().parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
    str(TESTS), os.environ.get("PYTHONPATH", "")]))}

# the grid shared by the reference, the kill-and-resume and the scheduler tests: 16 tasks
MATRICES = [datasets.load("cyclic"), datasets.load("arithmetic")]
ALGORITHMS = ["uniform", "sweep_plugins:uniform"]
PARAMS = {"sweep_plugins:uniform": {"sleep": 0.6}}
T, RUNS, SEED = 2000, 4, 7
CLI_ARGS = ["--example", "cyclic", "--example", "arithmetic", "--algorithms",
            ",".join(ALGORITHMS), "--params", json.dumps(PARAMS), "--T", str(T),
            "--runs", str(RUNS), "--seed", str(SEED), "--no-progress"]
# what a run's result is; wall time, worker, timestamps and attempts describe the execution
RESULT_FIELDS = ("task_key", "matrix_hash", "algorithm", "params", "T", "sweep_seed", "run",
                 "seed", "status", "final_komiyama", "final_zoghi", "final_binary",
                 "checkpoints", "regret", "counts", "wins")


def _results(path) -> dict[str, tuple]:
    with SweepStore(path, readonly=True) as st:
        return {r["task_key"]: tuple(json.dumps(r[k]) for k in RESULT_FIELDS)
                for r in st.runs(None)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted sweep of the shared grid on the default local cluster."""
    path = tmp_path_factory.mktemp("ref") / "ref.sqlite"
    result = sweep(MATRICES, ALGORITHMS, T, RUNS, SEED, path, params=PARAMS, workers=2)
    return path, result


@pytest.fixture(scope="module")
def external_cluster():
    """``dask scheduler`` + two ``dask worker`` processes on 127.0.0.1, random free ports."""
    from dask.distributed import Client

    bindir = Path(sys.executable).parent
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = {**ENV, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    procs = []
    try:
        procs.append(subprocess.Popen(
            [bindir / "dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--no-dashboard"], env=env, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(2):
            procs.append(subprocess.Popen(
                [bindir / "dask", "worker", addr, "--nthreads", "1", "--host", "127.0.0.1",
                 "--no-dashboard"], env=env, start_new_session=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with Client(addr, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield addr
    finally:
        for p in reversed(procs):
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def test_reference_sweep_records_every_task_with_its_derived_seed(reference):
    path, result = reference
    assert (result.total, result.completed, result.skipped, result.failed) == (16, 16, 0, [])
    rows = result.records()
    assert len(rows) == 16
    # independent of Dask: re-run each package task in this process from its derived seed
    for r in rows:
        M = next(M for M in MATRICES if M.content_hash() == r["matrix_hash"])
        assert r["seed"] == derive_seed(SEED, r["matrix_hash"], r["algorithm"], r["run"])
        if r["algorithm"] == "uniform":
            rec = run_single(M, "uniform", T, r["seed"])
            assert r["final_komiyama"] == rec.final_regret["komiyama"]
            assert r["counts"] == rec.counts.tolist()
        assert sum(r["counts"][i][j] for i in range(M.K) for j in range(i, M.K)) == T
    if importlib.util.find_spec("pandas") is None:  # pandas is optional: then a clear error
        with pytest.raises(DuelboundError, match="pandas"):
            result.dataframe()
    else:
        assert len(result.dataframe()) == 16


def test_scheduler_path_gives_the_local_results(reference, external_cluster, tmp_path):
    """The external scheduler runs Dask's default worker-saturation (1.1), so the sweep
    takes its conservative path there (one task per worker thread in flight, kept by
    the client); the local default queues tasks on the scheduler.  Same results."""
    from dask.distributed import Client

    from duelbound.checks.sweep.cluster import queueing_safe

    with Client(external_cluster, timeout="30s") as client:
        assert not queueing_safe(client)
    path = tmp_path / "ext.sqlite"
    result = sweep(MATRICES, ALGORITHMS, T, RUNS, SEED, path, params=PARAMS,
                   scheduler=external_cluster)
    assert (result.completed, result.failed) == (16, [])
    assert _results(path) == _results(reference[0])


def test_kill_and_resume_equals_an_uninterrupted_sweep(reference, external_cluster, tmp_path):
    """SIGKILL of the whole process group of a local sweep (client, nanny and workers), then
    the same command resumes it; to save a cluster start-up the resume runs on the external
    cluster (results do not depend on where a task ran: that is tested too)."""
    path = tmp_path / "killed.sqlite"
    cmd = [sys.executable, "-m", "duelbound", "sweep", *CLI_ARGS, "--store", str(path),
           "--workers", "2"]
    proc = subprocess.Popen(cmd, env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: dict[str, tuple] = {}
    report = None
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists():
                try:
                    now = _results(path)
                except DuelboundError:  # schema not committed yet
                    now = {}
                # a reader during the sweep: rows only appear, complete, and never change
                assert all(now[k] == v for k, v in seen.items())
                assert all(v[RESULT_FIELDS.index("status")] == '"ok"' for v in now.values())
                seen = now
                if seen and report is None:  # the CLI reader, concurrently with the sweep
                    report = subprocess.Popen(
                        [sys.executable, "-m", "duelbound", "sweep-report", str(path),
                         "--format", "json", "--runs"], env=ENV, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
                if len(seen) >= 4:
                    break
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep finished before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    committed = _results(path)
    assert 4 <= len(committed) < 16
    assert all(committed[k] == v for k, v in seen.items())  # nothing committed was lost
    out, err = report.communicate(timeout=60)
    assert report.returncode == 0, err
    reported = json.loads(out)
    assert reported and all(r["status"] == "ok" for r in reported)

    done = subprocess.run(cmd[:-2] + ["--scheduler", external_cluster], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{16 - len(committed)} done now, {len(committed)} already in the store" in done.stdout
    final = _results(path)
    assert final == _results(reference[0])
    # what the concurrent reader saw are complete rows of the final store
    assert all(final[r["task_key"]] == tuple(json.dumps(r[k]) for k in RESULT_FIELDS)
               for r in reported)
    with SweepStore(path, readonly=True) as st:
        dup = st._conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM runs GROUP BY matrix_hash, algorithm, "
            "params, T, sweep_seed, run HAVING COUNT(*) > 1)").fetchone()[0]
        assert dup == 0 and st.count() == 16


@pytest.mark.parametrize("queued", [True, False], ids=["scheduler-queue", "client-throttle"])
def test_raising_and_dying_tasks_fail_after_one_retry(tmp_path, capsys, monkeypatch, queued):
    """Only the crashing task is charged: the 10 others finish at their first attempt,
    with tasks queued on the scheduler (default) and with the client's own throttle."""
    from duelbound.checks.sweep import runner as sweep_module

    real, seen = sweep_module.queueing_safe, []
    monkeypatch.setattr(sweep_module, "queueing_safe",
                        lambda client: seen.append(real(client) and queued) or seen[-1])
    doomed = datasets.load("unique_copeland").values
    files = []
    for name, values in [("doomed", doomed)]:
        f = tmp_path / f"{name}.json"
        f.write_text(json.dumps(PreferenceMatrix(values, name=name).to_dict()))
        files.append(str(f))
    store = tmp_path / "fail.sqlite"
    algs = "sweep_plugins:uniform,sweep_plugins:boom,sweep_plugins:die"
    rc = main(["sweep", "--matrices", *files, "--example", "cyclic", "--example", "arithmetic",
               "--example", "multi_winner", "--algorithms", algs, "--T", "500", "--runs", "1",
               "--seed", "1", "--store", str(store), "--workers", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1
    with SweepStore(store, readonly=True) as st:
        names = st.matrix_names()
        rows = st.runs(None)
    assert len(rows) == 12
    failed = {(names[r["matrix_hash"]], r["algorithm"]): r for r in rows if r["status"] != "ok"}
    assert set(failed) == {("doomed", "sweep_plugins:boom"), ("doomed", "sweep_plugins:die")}
    assert all(r["attempts"] == 2 for r in failed.values())
    assert "boom on purpose" in failed[("doomed", "sweep_plugins:boom")]["error"]
    assert "KilledWorker" in failed[("doomed", "sweep_plugins:die")]["error"]
    assert all(r["attempts"] == 1 for r in rows if r["status"] == "ok")
    assert err.count("failed after 2 attempts") == 2
    assert seen == [queued]  # the local default cluster is configured for queueing
    # resumed with --skip-failed: nothing to run (no cluster), the failures still count
    rc = main(["sweep", "--matrices", *files, "--example", "cyclic", "--example", "arithmetic",
               "--example", "multi_winner", "--algorithms", algs, "--T", "500", "--runs", "1",
               "--seed", "1", "--store", str(store), "--skip-failed", "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 1 and "0 done now, 12 already in the store, 2 failed" in out
    assert err.count("(earlier sweep)") == 2


def test_bounds_sweep_stores_c_star_and_c_ecw(external_cluster, tmp_path, capsys):
    path = tmp_path / "bounds.sqlite"
    cyclic = datasets.load("cyclic")
    result = bounds_sweep([cyclic, datasets.load("arithmetic")], path,
                          scheduler=external_cluster)
    assert (result.completed, result.failed) == (2, []), result.failed
    rows = {r["matrix_hash"]: r for r in result.records()}
    # docs/math.md §5 worked example ([K16] App. C), from the KL divergence written out here
    d = {p: p * math.log(2 * p) + (1 - p) * math.log(2 * (1 - p)) for p in (0.6, 0.9)}
    row = rows[cyclic.content_hash()]
    assert row["c_star"] == pytest.approx(1 / (2 * d[0.6]) + 1 / d[0.9], rel=1e-9)
    assert row["c_ecw"] == pytest.approx(1 / d[0.6], rel=1e-9)
    again = bounds_sweep([cyclic], path, scheduler=external_cluster)
    assert (again.completed, again.skipped) == (0, 1)
    assert main(["sweep-report", str(path), "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert "Bound sweep" in out and "order term (no constant)" in out


def test_report_table_matches_the_stored_runs(reference, tmp_path):
    path = reference[0]
    with SweepStore(path, readonly=True) as st:
        rows = st.runs()
    summary = summarise(path)
    assert len(summary) == 4 and all(s["runs"] == 4 and s["failed"] == 0 for s in summary)
    for s in summary:
        vals = [r["final_komiyama"] for r in rows
                if (r["matrix_hash"], r["algorithm"]) == (s["matrix_hash"], s["algorithm"])]
        mean = sum(vals) / len(vals)
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
        assert s["mean"] == pytest.approx(mean, rel=1e-12)
        assert s["std"] == pytest.approx(std, rel=1e-12)
        assert s["per_log_T"] == pytest.approx(mean / math.log(T), rel=1e-12)
        if s["matrix"] == "cyclic":
            # [K16] App. C: C^E* = 1/d(0.6, 1/2) on cyclic
            d = 0.6 * math.log(1.2) + 0.4 * math.log(0.8)
            assert s["c_ecw"] == pytest.approx(1 / d, rel=1e-9)
    zoghi = {(s["matrix"], s["algorithm"]): s for s in summarise(path, "zoghi")}
    for s in summary:
        z = zoghi[(s["matrix"], s["algorithm"])]
        assert z["mean"] == pytest.approx(2 * s["mean"]) and z["c_ecw"] == pytest.approx(
            2 * s["c_ecw"])
    table = report_table(path)
    for fmt in ("md", "latex", "csv", "json"):
        assert "komiyama" in render(table, fmt)
    png = tmp_path / "r.png"
    assert main(["sweep-report", str(path), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["sweep-report", str(tmp_path / "none.sqlite")]) == 2
    assert main(["sweep", "--example", "cyclic", "--store", str(tmp_path / "x.sqlite"),
                 "--T", "10"]) == 2
    assert main(["sweep", "--example", "cyclic", "--algorithms", "uniform", "--T", "10",
                 "--params", "{bad", "--store", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("duelbound sweep") for line in err)


def test_revive_replaces_a_nanny_that_gave_up():
    """A nanny whose restarted worker died while starting is left without a worker; the
    local cluster then gets a replacement from its spec instead of shrinking for good."""
    from duelbound.checks.sweep.cluster import dask_client

    with dask_client(None, 2) as (client, revive):
        cluster = client.cluster
        revive.grace = 0.5
        assert revive() == 0  # both workers alive
        first = next(iter(cluster.workers.values()))
        cluster.sync(first.close)
        assert revive() == 0  # missing for less than the grace period
        time.sleep(0.6)
        assert revive() == 1
        client.wait_for_workers(2, timeout=60)
        assert len(client.nthreads()) == 2
        assert revive() == 0


# -- notebooks, pandas, plots, store failures mid-sweep -------------------------------------------
def test_sweep_result_pandas_repr_and_plot(reference, tmp_path):
    pd = pytest.importorskip("pandas")
    path, result = reference
    assert len(repr(result)) < 300 and "completed=16" in repr(result)
    html = result._repr_html_()
    assert len(html.encode()) < 5000 and "mean R(T)" in html
    final = result.to_pandas()
    assert isinstance(final, pd.DataFrame)
    assert len(final) == 16 * 3 and set(final.convention) == {"komiyama", "zoghi", "binary"}
    assert set(final.matrix) == {"cyclic", "arithmetic"}
    with SweepStore(path, readonly=True) as st:
        stored = {(r["task_key"]): r["final_komiyama"] for r in st.runs()}
    mine = final[final.convention == "komiyama"]
    assert sorted(mine.regret) == sorted(stored.values())
    curves = result.to_pandas("regret")
    assert {"t", "regret", "run", "seed"} <= set(curves.columns)
    png = tmp_path / "r.png"
    assert main(["sweep-report", str(path), "--plot", str(png), "--log-y"]) == 0
    from PIL import Image

    with Image.open(png) as im:
        assert im.size[0] * im.size[1] < 4e6


def test_disk_full_mid_sweep_keeps_the_committed_results(external_cluster, tmp_path,
                                                          monkeypatch, capsys):
    """SQLite's SQLITE_FULL on the third commit: the sweep stops with one line, the two
    results committed before it stay, and the same command resumes after space is freed."""
    import sqlite3

    real = SweepStore.write_run
    calls = {"n": 0}

    def filling(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            with self._guard("committing a run"):
                raise sqlite3.OperationalError("database or disk is full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SweepStore, "write_run", filling)
    store = tmp_path / "full.sqlite"
    argv = ["sweep", "--example", "cyclic", "--algorithms", "uniform", "--T", "200",
            "--runs", "6", "--seed", "1", "--store", str(store), "--scheduler",
            external_cluster, "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "database or disk is full" in err[0] and "resume" in err[0]
    with SweepStore(store, readonly=True) as st:
        assert st.count("ok") == 2
    monkeypatch.setattr(SweepStore, "write_run", real)
    assert main(argv) == 0
    assert "4 done now, 2 already in the store" in capsys.readouterr().out


def test_cli_refuses_a_store_in_use(tmp_path, capsys, no_cluster):
    from duelbound.checks.sweep.store import sweep_lock

    store = tmp_path / "busy.sqlite"
    with sweep_lock(store):  # refused before any cluster starts (no_cluster)
        assert main(["sweep", "--example", "cyclic", "--algorithms", "uniform", "--T", "100",
                     "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is in use by another sweep" in err[0]
    assert main(["sweep", "--example", "cyclic", "--algorithms", "uniform", "--T", "100",
                 "--store", str(tmp_path / "missing" / "s.sqlite")]) == 2
    assert "does not exist" in capsys.readouterr().err
