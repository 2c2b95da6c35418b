"""Crash-safe SQLite store of sweep results: one row per finished run.

A sweep (:mod:`duelbound.checks.sweep`) commits every finished task at once,
in its own transaction, so a sweep killed at any moment loses only the
tasks that were in flight.  The store uses the standard library's
:mod:`sqlite3` in WAL mode: readers (``duelbound sweep-report`` while a sweep
runs) never block the writer and see only committed rows.

Tables (schema version :data:`SCHEMA_VERSION`, kept in ``meta``):

============  =================================================================
``meta``      ``schema_version``, ``created_by`` (package version)
``matrices``  one row per matrix content hash: name, K, ``PreferenceMatrix.to_dict()``
``runs``      one row per (matrix, algorithm, params, T, sweep seed, run):
              status ``ok``/``failed``, derived seed, final regret in the three
              conventions, regret at the checkpoints, N_ij, W_ij, wall time,
              attempts, error, package version, worker
``bounds``    one row per matrix of a ``--bounds-only`` sweep: C*, C^E*, the
              solver results (JSON)
============  =================================================================

A ``CHECK`` constraint makes an ``ok`` row without its results impossible,
so a half-written row cannot exist even in principle.

Examples
--------
>>> import tempfile, os
>>> from duelbound.theory import examples
>>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
>>> with SweepStore(path) as store:
...     h = store.add_matrix(examples.load("cyclic"))
...     (store.count(), list(store.matrix_names().values()))
(0, ['cyclic'])
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from duelbound.theory.errors import DuelboundError
from duelbound.theory.matrix import PreferenceMatrix

__all__ = ["SCHEMA_VERSION", "CONVENTION_COLUMNS", "SweepStore", "open_store"]

#: Version of the table layout; a store written by another version is refused.
SCHEMA_VERSION = 1

#: Regret convention -> column holding the final regret of a run.
CONVENTION_COLUMNS = {"komiyama": "final_komiyama", "zoghi": "final_zoghi",
                      "binary": "final_binary"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matrices (
    hash   TEXT PRIMARY KEY,
    name   TEXT,
    K      INTEGER NOT NULL,
    matrix TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    task_key       TEXT PRIMARY KEY,
    matrix_hash    TEXT NOT NULL REFERENCES matrices(hash),
    algorithm      TEXT NOT NULL,
    params         TEXT NOT NULL,
    T              INTEGER NOT NULL,
    sweep_seed     INTEGER NOT NULL,
    run            INTEGER NOT NULL,
    seed           INTEGER NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    attempts       INTEGER NOT NULL,
    final_komiyama REAL,
    final_zoghi    REAL,
    final_binary   REAL,
    checkpoints    TEXT,
    regret         TEXT,
    counts         TEXT,
    wins           TEXT,
    wall_time      REAL,
    error          TEXT,
    version        TEXT NOT NULL,
    worker         TEXT,
    finished_at    REAL NOT NULL,
    UNIQUE (matrix_hash, algorithm, params, T, sweep_seed, run),
    CHECK (status = 'failed' OR (final_komiyama IS NOT NULL AND final_zoghi IS NOT NULL
           AND final_binary IS NOT NULL AND checkpoints IS NOT NULL AND regret IS NOT NULL
           AND counts IS NOT NULL AND wall_time IS NOT NULL))
);
CREATE TABLE IF NOT EXISTS bounds (
    matrix_hash TEXT PRIMARY KEY REFERENCES matrices(hash),
    status      TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    c_star      REAL,
    c_ecw       REAL,
    result      TEXT,
    error       TEXT,
    attempts    INTEGER NOT NULL,
    wall_time   REAL,
    version     TEXT NOT NULL,
    finished_at REAL NOT NULL,
    CHECK (status = 'failed' OR (c_star IS NOT NULL AND c_ecw IS NOT NULL))
);
"""

_RUN_COLUMNS = ("task_key", "matrix_hash", "algorithm", "params", "T", "sweep_seed", "run",
                "seed", "status", "attempts", "final_komiyama", "final_zoghi", "final_binary",
                "checkpoints", "regret", "counts", "wins", "wall_time", "error", "version",
                "worker", "finished_at")
_JSON_COLUMNS = ("params", "checkpoints", "regret", "counts", "wins", "result")


def _package_version() -> str:
    from duelbound import __version__

    return __version__


def _dumps(obj: Any) -> str:
    # compact, key-sorted: the same result always serialises to the same text
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


class SweepStore:
    """A sweep result store on disk (SQLite, WAL mode).

    Parameters
    ----------
    path : str or Path
        The ``.sqlite`` file.  Created (with its schema) unless ``readonly``.
    readonly : bool
        Open an existing store for reading only (what ``sweep-report`` does);
        a reader never takes a write lock and sees only committed rows.
    timeout : float
        Seconds to wait for a lock held by another connection.

    Raises
    ------
    DuelboundError
        The file is missing (``readonly``), is not an SQLite database, or holds
        a store of another schema version.

    Notes
    -----
    Durability: WAL with ``synchronous=NORMAL`` keeps every committed row
    through a crash or SIGKILL of any process; only a power loss / kernel
    crash may roll back the last few commits (never corrupts the file).
    Pass ``synchronous="FULL"`` to fsync every commit.
    """

    def __init__(self, path: str | Path, readonly: bool = False, timeout: float = 30.0,
                 synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        self.readonly = readonly
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise DuelboundError(f"unknown sqlite synchronous mode {synchronous!r}")
        try:
            if readonly:
                if not self.path.is_file():
                    raise DuelboundError(f"no sweep store at {self.path}")
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, timeout=timeout,
                                             isolation_level=None)
            else:
                if self.path.parent and not self.path.parent.exists():
                    raise DuelboundError(f"cannot create store {self.path}: "
                                         f"directory {self.path.parent} does not exist")
                self._conn = sqlite3.connect(str(self.path), timeout=timeout,
                                             isolation_level=None)
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.row_factory = sqlite3.Row
            self._init_schema()
        except sqlite3.DatabaseError as exc:
            raise DuelboundError(f"{self.path} is not a usable sweep store ({exc})") from None

    # -- schema -------------------------------------------------------------------------------
    def _init_schema(self) -> None:
        if not self.readonly:
            with self._transaction():
                for stmt in filter(str.strip, _SCHEMA.split(";")):
                    self._conn.execute(stmt)
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),))
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('created_by', ?)",
                                   (_package_version(),))
        try:
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError:
            raise DuelboundError(f"{self.path} is not a duelbound sweep store") from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = None if row is None else row[0]
            raise DuelboundError(f"{self.path} has sweep-store schema version {found}; "
                                 f"this duelbound reads version {SCHEMA_VERSION}")

    class _Tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> sqlite3.Connection:
            # IMMEDIATE: take the write lock now, so the transaction never fails half-way
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")

    def _transaction(self) -> SweepStore._Tx:
        if self.readonly:
            raise DuelboundError(f"store {self.path} is open read-only")
        return SweepStore._Tx(self._conn)

    # -- context manager ------------------------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SweepStore:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------------
    def add_matrix(self, M: PreferenceMatrix) -> str:
        """Record ``M`` (idempotent); returns its content hash."""
        h = M.content_hash()
        with self._transaction() as c:
            self._insert_matrix(c, M, h)
        return h

    @staticmethod
    def _insert_matrix(c: sqlite3.Connection, M: PreferenceMatrix, h: str) -> None:
        c.execute("INSERT OR IGNORE INTO matrices VALUES (?, ?, ?, ?)",
                  (h, M.name, M.K, _dumps(M.to_dict())))

    def write_run(self, task: dict[str, Any], *, status: str, attempts: int,
                  record: dict[str, Any] | None = None, error: str | None = None,
                  worker: str | None = None) -> None:
        """Commit one finished task (one transaction).

        ``task`` holds ``task_key, matrix_hash, algorithm, params, T, sweep_seed, run, seed``;
        ``record`` (for ``status="ok"``) holds ``final_regret`` (convention -> float),
        ``checkpoints``, ``regret`` (convention -> list), ``counts``, ``wins``, ``wall_time``.
        An ``ok`` row is never overwritten; a ``failed`` row is replaced by a later attempt.
        """
        rec = record or {}
        final = rec.get("final_regret", {})
        row = {
            **{k: task[k] for k in ("task_key", "matrix_hash", "algorithm", "T", "sweep_seed",
                                    "run", "seed")},
            "params": _dumps(task["params"]),
            "status": status, "attempts": attempts,
            "final_komiyama": final.get("komiyama"), "final_zoghi": final.get("zoghi"),
            "final_binary": final.get("binary"),
            "checkpoints": _dumps(rec["checkpoints"]) if "checkpoints" in rec else None,
            "regret": _dumps(rec["regret"]) if "regret" in rec else None,
            "counts": _dumps(rec["counts"]) if "counts" in rec else None,
            "wins": _dumps(rec["wins"]) if rec.get("wins") is not None else None,
            "wall_time": rec.get("wall_time"), "error": error,
            "version": _package_version(), "worker": worker, "finished_at": time.time(),
        }
        cols = ", ".join(_RUN_COLUMNS)
        marks = ", ".join(f":{k}" for k in _RUN_COLUMNS)
        update = ", ".join(f"{k} = excluded.{k}" for k in _RUN_COLUMNS if k != "task_key")
        with self._transaction() as c:
            c.execute(f"INSERT INTO runs ({cols}) VALUES ({marks}) "
                      f"ON CONFLICT(task_key) DO UPDATE SET {update} "
                      f"WHERE runs.status = 'failed'", row)

    def write_bounds(self, matrix_hash: str, *, status: str, attempts: int,
                     result: dict[str, Any] | None = None, error: str | None = None) -> None:
        """Commit the bounds of one matrix (``result`` holds ``c_star``, ``c_ecw``, ...)."""
        res = result or {}
        with self._transaction() as c:
            c.execute(
                "INSERT INTO bounds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(matrix_hash) DO UPDATE SET status = excluded.status, "
                "c_star = excluded.c_star, c_ecw = excluded.c_ecw, result = excluded.result, "
                "error = excluded.error, attempts = excluded.attempts, "
                "wall_time = excluded.wall_time, version = excluded.version, "
                "finished_at = excluded.finished_at WHERE bounds.status = 'failed'",
                (matrix_hash, status, res.get("c_star"), res.get("c_ecw"),
                 _dumps(res) if result is not None else None, error, attempts,
                 res.get("wall_time"), _package_version(), time.time()))

    # -- reading --------------------------------------------------------------------------------
    def keys(self, status: str | None = "ok", table: str = "runs") -> set[str]:
        """Task keys (``runs``) or matrix hashes (``bounds``) present with ``status``."""
        col = "task_key" if table == "runs" else "matrix_hash"
        if table not in ("runs", "bounds"):
            raise DuelboundError(f"unknown store table {table!r}")
        q = f"SELECT {col} FROM {table}"
        rows = (self._conn.execute(q) if status is None
                else self._conn.execute(q + " WHERE status = ?", (status,)))
        return {r[0] for r in rows}

    def count(self, status: str | None = None) -> int:
        """Number of run rows (with ``status`` if given)."""
        if status is None:
            return self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        return self._conn.execute("SELECT COUNT(*) FROM runs WHERE status = ?",
                                  (status,)).fetchone()[0]

    def matrices(self) -> dict[str, PreferenceMatrix]:
        """Content hash -> matrix, for every matrix of the store."""
        out = {}
        for r in self._conn.execute("SELECT hash, name, matrix FROM matrices ORDER BY hash"):
            # JSON keeps float64 values exactly; broken ties are already in the values
            out[r["hash"]] = PreferenceMatrix.from_dict(json.loads(r["matrix"]))
        return out

    def matrix_names(self) -> dict[str, str]:
        """Content hash -> display name (the name, else the hash prefix)."""
        return {r[0]: (r[1] or r[0][:12]) for r in
                self._conn.execute("SELECT hash, name FROM matrices")}

    def runs(self, status: str | None = "ok", *, decode: bool = True,
             fields: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Run rows as dicts, in a stable order (matrix, algorithm, params, T, seed, run).

        One consistent snapshot: all rows come from one read transaction.
        """
        return list(self.iter_runs(status, decode=decode, fields=fields))

    def iter_runs(self, status: str | None = "ok", *, decode: bool = True,
                  fields: Iterable[str] | None = None) -> Iterator[dict[str, Any]]:
        cols = list(fields) if fields is not None else list(_RUN_COLUMNS)
        bad = set(cols) - set(_RUN_COLUMNS)
        if bad:
            raise DuelboundError(f"unknown run fields {sorted(bad)}")
        q = (f"SELECT {', '.join(cols)} FROM runs"
             + ("" if status is None else " WHERE status = ?")
             + " ORDER BY matrix_hash, algorithm, params, T, sweep_seed, run")
        args = () if status is None else (status,)
        for r in self._conn.execute(q, args):
            d = dict(r)
            if decode:
                for k in _JSON_COLUMNS:
                    if d.get(k) is not None:
                        d[k] = json.loads(d[k])
            yield d

    def bounds(self, status: str | None = "ok") -> list[dict[str, Any]]:
        """Bound rows (``--bounds-only`` sweeps) as dicts."""
        q = "SELECT * FROM bounds" + ("" if status is None else " WHERE status = ?")
        rows = self._conn.execute(q + " ORDER BY matrix_hash",
                                  () if status is None else (status,))
        out = []
        for r in rows:
            d = dict(r)
            if d.get("result") is not None:
                d["result"] = json.loads(d["result"])
            out.append(d)
        return out


def open_store(path: str | Path, readonly: bool = False) -> SweepStore:
    """Open (or create) the store at ``path``; see :class:`SweepStore`."""
    return SweepStore(path, readonly=readonly)
