"""The SQLite sweep store: schema, atomic rows, isolation of readers, seeds of a grid."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from duelbound.checks.sweep.runner import derive_seed, grid
from duelbound.checks.sweep.store import APPLICATION_ID, SCHEMA_VERSION, SweepStore, sweep_lock
from duelbound.theory import DuelboundError, datasets

CYCLIC = datasets.load("cyclic")


def _task(key: str = "k0", run: int = 0) -> dict:
    return {"task_key": key, "matrix_hash": CYCLIC.content_hash(), "algorithm": "uniform",
            "params": {}, "T": 10, "sweep_seed": 0, "run": run, "seed": 123}


def _record(final: float = 2.5) -> dict:
    return {"checkpoints": [5, 10], "regret": {"komiyama": [1.0, final]},
            "final_regret": {"komiyama": final, "zoghi": 2 * final, "binary": 7.0},
            "counts": [[1, 2, 0, 0], [2, 3, 1, 0], [0, 1, 1, 2], [0, 0, 2, 1]], "wins": None,
            "wall_time": 0.01}


@pytest.fixture
def store(tmp_path):
    with SweepStore(tmp_path / "s.sqlite") as s:
        s.add_matrix(CYCLIC)
        yield s


def test_store_is_wal_and_versioned(store):
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)


def test_run_row_round_trips(store):
    store.write_run(_task(), status="ok", attempts=1, record=_record(), worker="w")
    (row,) = store.runs()
    assert row["final_komiyama"] == 2.5 and row["final_zoghi"] == 5.0
    assert row["counts"] == _record()["counts"] and row["regret"] == {"komiyama": [1.0, 2.5]}
    assert row["seed"] == 123 and row["attempts"] == 1 and row["version"]
    assert store.matrices()[CYCLIC.content_hash()] == CYCLIC


def test_ok_row_is_never_overwritten_failed_row_is(store):
    store.write_run(_task("a"), status="failed", attempts=2, error="boom")
    store.write_run(_task("a"), status="ok", attempts=1, record=_record(1.0))
    store.write_run(_task("a"), status="ok", attempts=1, record=_record(9.0))
    store.write_run(_task("a"), status="failed", attempts=2, error="late")
    (row,) = store.runs(None)
    assert (row["status"], row["final_komiyama"], row["error"]) == ("ok", 1.0, None)


def test_ok_row_without_results_is_impossible(store):
    with pytest.raises(sqlite3.IntegrityError):
        store.write_run(_task(), status="ok", attempts=1, record={"final_regret": {}})
    assert store.count() == 0


def test_duplicate_task_identity_is_rejected(store):
    store.write_run(_task("a"), status="ok", attempts=1, record=_record())
    # same (matrix, algorithm, params, T, sweep seed, run) under another key
    with pytest.raises(sqlite3.IntegrityError):
        store.write_run(_task("b"), status="ok", attempts=1, record=_record())
    assert store.count() == 1


def test_reader_sees_only_committed_rows_and_is_not_blocked(store):
    reader = SweepStore(store.path, readonly=True, timeout=0.2)
    store._conn.execute("BEGIN IMMEDIATE")
    store._conn.execute(
        "INSERT INTO runs (task_key, matrix_hash, algorithm, params, T, sweep_seed, run, seed,"
        " status, attempts, version, finished_at) VALUES ('x', ?, 'u', '{}', 1, 0, 0, 1,"
        " 'failed', 1, 'v', 0)", (CYCLIC.content_hash(),))
    # uncommitted row invisible, and WAL: no lock wait (a lock would make this reader,
    # whose busy timeout is 0.2 s, raise "database is locked": the writer holds it throughout)
    assert reader.count() == 0
    store._conn.execute("COMMIT")
    assert reader.count() == 1
    with pytest.raises(DuelboundError):
        reader.write_run(_task(), status="failed", attempts=1, error="x")
    reader.close()


def test_bad_files_are_package_errors(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(DuelboundError, match="not an SQLite database .a text file starting"):
        SweepStore(junk)
    with pytest.raises(DuelboundError, match="no sweep store"):
        SweepStore(tmp_path / "missing.sqlite", readonly=True)
    other = tmp_path / "other.sqlite"
    SweepStore(other).close()
    conn = sqlite3.connect(other)
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(DuelboundError, match="schema version 999"):
        SweepStore(other, readonly=True)


def test_bound_rows(store):
    h = CYCLIC.content_hash()
    store.write_bounds(h, status="failed", attempts=2, error="x")
    store.write_bounds(h, status="ok", attempts=1, result={"c_star": 27.5, "c_ecw": 49.7})
    (row,) = store.bounds()
    assert (row["c_star"], row["c_ecw"], row["result"]["c_star"]) == (27.5, 49.7, 27.5)


# -- the grid and its seeds -------------------------------------------------------------------
MATRICES = [datasets.load(n, break_ties=1e-3) for n in datasets.names()]


@given(st.integers(0, 2**32), st.integers(1, 4), st.integers(1, 3),
       st.lists(st.sampled_from(["uniform", "d-ts", "rucb"]), min_size=1, max_size=3,
                unique=True))
def test_grid_seeds_do_not_depend_on_the_rest_of_the_grid(S, n_mat, runs, algs):
    small = grid(MATRICES[:n_mat], algs[:1], T=10, runs=runs, seed=S)
    big = grid(MATRICES, algs, T=10, runs=runs + 2, seed=S)
    by_key = {t.task_key: t.seed for t in big}
    assert all(by_key[t.task_key] == t.seed for t in small)
    assert len({t.seed for t in big}) == len(big)  # 63-bit hashes: no collision here
    assert len({t.task_key for t in big}) == len(big) == len(MATRICES) * len(algs) * (runs + 2)


def test_seed_is_a_hash_of_its_four_inputs():
    import hashlib

    h = CYCLIC.content_hash()
    text = f"duelbound-sweep|5|{h}|d-ts|3".encode()
    expected = int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1
    assert derive_seed(5, h, "d-ts", 3) == expected
    assert derive_seed(5, h, "d-ts", 3) != derive_seed(5, h, "d-ts", 4)


def test_same_matrix_twice_gives_each_task_once():
    assert len(grid([CYCLIC, CYCLIC], ["uniform"], T=5, runs=3, seed=0)) == 3


@pytest.mark.parametrize("kwargs, match", [
    ({"T": 0}, "T must be"), ({"runs": 0}, "runs must"), ({"algorithms": []}, "algorithm"),
    ({"params": {"rucb": {}}}, "not in the sweep"), ({"algorithms": ["nope"]}, "unknown"),
    ({"params": {"uniform": {"zeta": 1}}}, "unknown parameter"),
])
def test_bad_grids_are_package_errors(kwargs, match):
    args = {"matrices": [CYCLIC], "algorithms": ["uniform"], "T": 5, "runs": 1, "seed": 0,
            **kwargs}
    with pytest.raises(DuelboundError, match=match):
        grid(**args)


# -- files that are not stores, and stores that cannot be used -----------------------------------
def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_store_carries_its_application_id(store):
    assert store._conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_foreign_sqlite_files_are_refused_and_left_untouched(tmp_path):
    tables = tmp_path / "tables.sqlite"
    with sqlite3.connect(tables) as conn:
        conn.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    before = tables.read_bytes()
    for readonly in (False, True):
        with pytest.raises(DuelboundError) as exc:
            SweepStore(tables, readonly=readonly)
        assert "SQLite database of another program (tables: users)" in _one_line(exc)
    assert tables.read_bytes() == before  # no schema, no WAL switch, no application_id
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("PRAGMA application_id = 1234")
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    with pytest.raises(DuelboundError) as exc:
        SweepStore(other)
    assert "another application (application_id 0x000004d2)" in _one_line(exc)
    binary = tmp_path / "bin.sqlite"
    binary.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(DuelboundError, match=r"not an SQLite database \(a binary file\)"):
        SweepStore(binary)


def test_store_without_application_id_is_adopted(tmp_path):
    """Stores written before the id existed are recognised by their schema."""
    path = tmp_path / "old.sqlite"
    SweepStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA application_id = 0")
    with SweepStore(path, readonly=True) as st:
        assert st.count() == 0
    with SweepStore(path) as st:
        assert st._conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_corrupted_pages_are_one_line(tmp_path):
    path = tmp_path / "c.sqlite"
    with SweepStore(path) as st:
        st.add_matrix(CYCLIC)
        for k in range(200):
            st.write_run(_task(f"k{k}", k), status="ok", attempts=1, record=_record())
        st._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(path, "r+b") as fh:  # keep the header page, overwrite the b-tree pages
        fh.seek(4096 * 3)
        fh.write(bytes(range(256)) * 16 * 20)
    with pytest.raises(DuelboundError) as exc:
        with SweepStore(path, readonly=True) as st:
            st.runs()
    assert "is corrupted (database disk image is malformed)" in _one_line(exc)
    assert ".recover" in str(exc.value)


def test_full_disk_is_one_line_and_keeps_committed_rows(store):
    """SQLite's own SQLITE_FULL ("database or disk is full"), produced by capping the file's
    page count at its current size."""
    store.write_run(_task("kept"), status="ok", attempts=1, record=_record())
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")
    big = {**_record(), "checkpoints": list(range(20000))}
    with pytest.raises(DuelboundError) as exc:
        store.write_run(_task("lost", 1), status="ok", attempts=1, record=big)
    text = _one_line(exc)
    assert "database or disk is full" in text and "re-run the same command" in text
    assert [r["task_key"] for r in store.runs()] == ["kept"]
    assert not store._conn.in_transaction


def test_read_only_folders_and_files_are_one_line(tmp_path, monkeypatch):
    """Permissions are simulated through os.access (the tests may run as root, which
    ignores them); the store checks them before SQLite does."""
    import duelbound.checks.sweep.store as store_mod

    path = tmp_path / "s.sqlite"
    with SweepStore(path) as st:
        st.add_matrix(CYCLIC)
    locked = {str(tmp_path)}
    real = os.access
    monkeypatch.setattr(store_mod.os, "access",
                        lambda p, mode: False if str(p) in locked else real(p, mode))
    with pytest.raises(DuelboundError) as exc:
        SweepStore(tmp_path / "new.sqlite")
    assert _one_line(exc).endswith(f"folder {tmp_path} is not writable")
    with pytest.raises(DuelboundError) as exc:
        SweepStore(path)
    assert "its folder" in _one_line(exc) and "not writable" in str(exc.value)
    with SweepStore(path, readonly=True) as st:  # read as immutable: nothing can write it
        assert list(st.matrix_names().values()) == ["cyclic"]
    locked = {str(path)}
    with pytest.raises(DuelboundError) as exc:
        SweepStore(path)
    assert "is read-only (file permissions)" in _one_line(exc)


# -- one sweep per store ----------------------------------------------------------------------
def test_second_sweep_on_a_store_is_refused_with_its_owner(tmp_path, no_cluster):
    from duelbound.checks.sweep.runner import bounds_sweep, sweep

    path = tmp_path / "s.sqlite"
    with sweep_lock(path):
        with pytest.raises(DuelboundError) as exc:  # refused before any cluster starts
            sweep([CYCLIC], ["uniform"], 10, 1, 0, path)
        text = _one_line(exc)
        assert "is in use by another sweep (pid" in text and str(os.getpid()) in text
        with pytest.raises(DuelboundError, match="in use by another sweep"):
            bounds_sweep([CYCLIC], path)
        with SweepStore(path, readonly=True) as st:  # readers are not blocked
            assert st.count() == 0
    with sweep_lock(path):  # released
        pass
    with SweepStore(path, readonly=True) as st:
        assert st._conn.execute(
            "SELECT COUNT(*) FROM meta WHERE key = 'sweep_owner'").fetchone()[0] == 0


def test_lock_of_a_killed_sweep_is_released(tmp_path):
    path = tmp_path / "s.sqlite"
    code = ("import sys, time\n"
            "from duelbound.checks.sweep.store import sweep_lock\n"
            "with sweep_lock(sys.argv[1]):\n"
            "    print('locked', flush=True)\n"
            "    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(DuelboundError, match=f"in use by another sweep \\(pid {proc.pid} "):
            with sweep_lock(path):
                pass
    finally:
        proc.kill()
        proc.wait()
    with sweep_lock(path):  # the kernel dropped the dead process's lock
        pass
