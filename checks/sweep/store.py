"""Crash-safe SQLite store of sweep results: one row per finished run.

A sweep (:mod:`duelbound.checks.sweep.runner`) commits every finished task at once,
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
>>> from duelbound.theory import datasets
>>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
>>> with SweepStore(path) as store:
...     h = store.add_matrix(datasets.load("cyclic"))
...     (store.count(), list(store.matrix_names().values()))
(0, ['cyclic'])
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ... import __version__
from ...theory.errors import DuelboundError
from ...theory.matrix import PreferenceMatrix

__all__ = ["SCHEMA_VERSION", "APPLICATION_ID", "CONVENTION_COLUMNS", "SweepStore", "open_store",
           "sweep_lock"]

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


#: ``PRAGMA application_id`` of a duelbound store: "DBND" in ASCII.
APPLICATION_ID = 0x44424E44

_SQLITE_HEADER = b"SQLite format 3\x00"


def _sniff(path: Path) -> None:
    """Refuse a non-empty file that is not an SQLite database, saying what it looks like."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError as exc:
        raise DuelboundError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head or head.startswith(_SQLITE_HEADER):
        return
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text.strip() and all(ch.isprintable() or ch in "\r\n\t" for ch in text):
        what = f"a text file starting {text.strip().splitlines()[0][:30]!r}"
    else:
        what = "a binary file"
    raise DuelboundError(f"{path} is not an SQLite database ({what}), "
                         f"not a duelbound sweep store")


def _store_error(path: Path, exc: sqlite3.Error, action: str, timeout: float
                 ) -> DuelboundError:
    """One line for an sqlite3 error on the store at ``path`` while doing ``action``."""
    msg = str(exc)
    low = msg.lower()
    if "disk is full" in low or "disk i/o error" in low:
        return DuelboundError(
            f"store {path}: {msg} while {action}; every result committed before is kept — "
            f"free space, then re-run the same command to resume")
    if "readonly" in low or "read-only" in low:
        return DuelboundError(f"store {path} cannot be written while {action} ({msg}): "
                              f"check the permissions of the file and of its folder")
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return DuelboundError(
            f"store {path} is corrupted ({msg}) while {action}; its committed rows may be "
            f"recoverable with: sqlite3 {path} .recover")
    if "locked" in low or "busy" in low:
        return DuelboundError(f"store {path} stayed locked by another process for "
                              f"{timeout:g} s while {action}")
    return DuelboundError(f"store {path}: {msg} while {action}")



def _package_version() -> str:
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
        a reader never takes a write lock and sees only committed rows.  A store in a
        read-only folder is opened as immutable (nothing can be writing it).
    timeout : float
        Seconds to wait for a lock held by another connection.

    Raises
    ------
    DuelboundError
        One line saying what is wrong: the file is missing (``readonly``), is not an SQLite
        database (and what it looks like), is the database of another program (its
        ``PRAGMA application_id`` or its tables), holds a store of another schema version,
        is corrupted, or its folder / the file is not writable.  Errors of later reads and
        writes (disk full, corruption, a lock held too long) are turned into one-line
        :class:`DuelboundError` too.

    Notes
    -----
    Durability: WAL with ``synchronous=NORMAL`` keeps every committed row
    through a crash or SIGKILL of any process; only a power loss / kernel
    crash may roll back the last few commits (never corrupts the file).
    Pass ``synchronous="FULL"`` to fsync every commit.

    Identity: a store carries ``PRAGMA application_id`` = :data:`APPLICATION_ID`
    ("DBND"); an SQLite file with another id, or without it and without the store's
    tables, is refused before anything is written to it.  Stores written before the id
    existed (same schema version) are recognised by their tables and get the id.
    """

    def __init__(self, path: str | Path, readonly: bool = False, timeout: float = 30.0,
                 synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.timeout = float(timeout)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise DuelboundError(f"unknown sqlite synchronous mode {synchronous!r}")
        self._conn = self._open_readonly() if readonly else self._open_writable()
        try:
            with self._guard("opening it"):
                if not readonly:
                    self._conn.execute("PRAGMA journal_mode=WAL")
                    self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
                self._conn.execute("PRAGMA foreign_keys=ON")
                self._conn.row_factory = sqlite3.Row
                self._init_schema()
        except BaseException:
            self._conn.close()
            raise

    # -- opening --------------------------------------------------------------------------------
    def _open_writable(self) -> sqlite3.Connection:
        path, folder = self.path, self.path.resolve().parent
        if not folder.is_dir():
            raise DuelboundError(f"cannot create store {path}: folder {folder} does not exist")
        if path.exists():
            if not path.is_file():
                raise DuelboundError(f"cannot use {path} as a store: it is not a file")
            _sniff(path)
            if not os.access(path, os.W_OK):
                raise DuelboundError(f"store {path} is read-only (file permissions); "
                                     f"sweep-report can still read it")
            if not os.access(folder, os.W_OK | os.X_OK):
                raise DuelboundError(f"cannot write to store {path}: its folder {folder} is "
                                     f"not writable (SQLite keeps {path.name}-wal next to it)")
        elif not os.access(folder, os.W_OK | os.X_OK):
            raise DuelboundError(f"cannot create store {path}: folder {folder} is not writable")
        with self._guard("opening it"):
            conn = sqlite3.connect(str(path), timeout=self.timeout, isolation_level=None)
        try:
            self._identify(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_readonly(self) -> sqlite3.Connection:
        path = self.path
        if not path.is_file():
            raise DuelboundError(f"no sweep store at {path}")
        _sniff(path)
        uri = f"{path.resolve().as_uri()}?mode=ro"
        folder = path.resolve().parent
        wal = path.with_name(path.name + "-wal")
        if not os.access(folder, os.W_OK) and not (wal.exists() and wal.stat().st_size):
            # a WAL reader must create -shm; in a read-only folder nothing can be writing
            # the store (a writer needs -wal there), so it is safe to read as immutable
            uri += "&immutable=1"
        with self._guard("opening it"):
            conn = sqlite3.connect(uri, uri=True, timeout=self.timeout, isolation_level=None)
        try:
            self._identify(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _identify(self, conn: sqlite3.Connection) -> None:
        """Refuse a database that is not a duelbound store, before writing anything."""
        with self._guard("reading its header"):
            app = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app == APPLICATION_ID:
            return
        if app != 0:
            raise DuelboundError(f"{self.path} is the SQLite database of another application "
                                 f"(application_id {app:#010x}), not a duelbound sweep store")
        if tables and not {"meta", "matrices", "runs"} <= tables:
            shown = ", ".join(sorted(tables)[:6]) + (" …" if len(tables) > 6 else "")
            raise DuelboundError(f"{self.path} is an SQLite database of another program "
                                 f"(tables: {shown}), not a duelbound sweep store")

    @contextlib.contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turn an sqlite3 error into one :class:`DuelboundError` line saying what happened."""
        try:
            yield
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise  # a bug of the caller (e.g. an ok row without results), not the file's state
        except sqlite3.DatabaseError as exc:
            raise _store_error(self.path, exc, action, self.timeout) from None

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
        if not self.readonly:  # after the version check: a foreign schema stays untouched
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    class _Tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> sqlite3.Connection:
            # IMMEDIATE: take the write lock now, so the transaction never fails half-way
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            if exc_type is None:
                try:
                    self.conn.execute("COMMIT")
                    return
                except sqlite3.Error:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

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
        with self._guard("recording a matrix"), self._transaction() as c:
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
        with self._guard("committing a run"), self._transaction() as c:
            c.execute(f"INSERT INTO runs ({cols}) VALUES ({marks}) "
                      f"ON CONFLICT(task_key) DO UPDATE SET {update} "
                      f"WHERE runs.status = 'failed'", row)

    def write_bounds(self, matrix_hash: str, *, status: str, attempts: int,
                     result: dict[str, Any] | None = None, error: str | None = None) -> None:
        """Commit the bounds of one matrix (``result`` holds ``c_star``, ``c_ecw``, ...)."""
        res = result or {}
        with self._guard("committing bounds"), self._transaction() as c:
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
        with self._guard("reading it"):
            rows = (self._conn.execute(q) if status is None
                    else self._conn.execute(q + " WHERE status = ?", (status,)))
            return {r[0] for r in rows}

    def count(self, status: str | None = None) -> int:
        """Number of run rows (with ``status`` if given)."""
        with self._guard("reading it"):
            if status is None:
                return self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            return self._conn.execute("SELECT COUNT(*) FROM runs WHERE status = ?",
                                      (status,)).fetchone()[0]

    def matrices(self) -> dict[str, PreferenceMatrix]:
        """Content hash -> matrix, for every matrix of the store."""
        out = {}
        with self._guard("reading it"):
            rows = self._conn.execute(
                "SELECT hash, name, matrix FROM matrices ORDER BY hash").fetchall()
        for r in rows:
            # JSON keeps float64 values exactly; broken ties are already in the values
            out[r["hash"]] = PreferenceMatrix.from_dict(json.loads(r["matrix"]))
        return out

    def matrix_names(self) -> dict[str, str]:
        """Content hash -> display name (the name, else the hash prefix)."""
        with self._guard("reading it"):
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
        with self._guard("reading its runs"):
            cursor = self._conn.execute(q, args)
            while True:
                batch = cursor.fetchmany(256)
                if not batch:
                    break
                for r in batch:
                    d = dict(r)
                    if decode:
                        for k in _JSON_COLUMNS:
                            if d.get(k) is not None:
                                d[k] = json.loads(d[k])
                    yield d

    def bounds(self, status: str | None = "ok") -> list[dict[str, Any]]:
        """Bound rows (``--bounds-only`` sweeps) as dicts."""
        q = "SELECT * FROM bounds" + ("" if status is None else " WHERE status = ?")
        with self._guard("reading its bounds"):
            rows = self._conn.execute(q + " ORDER BY matrix_hash",
                                      () if status is None else (status,)).fetchall()
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


@contextlib.contextmanager
def sweep_lock(path: str | Path) -> Iterator[None]:
    """Hold the store at ``path`` for one sweep: a second sweep on it is refused at once.

    An exclusive ``flock`` on the store file (independent of SQLite's own locks, which
    only serialise single transactions); the kernel releases it when the process ends,
    however it ends, so a killed sweep never leaves a stale lock.  The holder's host, pid
    and start time are kept in ``meta`` (key ``sweep_owner``) for the refusal message.
    Readers (``sweep-report``) take no lock.  Where ``fcntl`` does not exist (Windows) no
    lock is taken.

    Raises
    ------
    DuelboundError
        Another sweep holds the store (one line naming it).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path = Path(path)
    SweepStore(path).close()  # create it, or refuse a file that is not a store
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            with SweepStore(path, readonly=True) as st, st._guard("reading its owner"):
                row = st._conn.execute(
                    "SELECT value FROM meta WHERE key = 'sweep_owner'").fetchone()
            owner = row[0] if row else "owner unknown"
            raise DuelboundError(f"store {path} is in use by another sweep ({owner}); wait "
                                 f"for it to finish or use another store (sweep-report can "
                                 f"read it meanwhile)") from None
        owner = (f"pid {os.getpid()} on {socket.gethostname()}, started "
                 f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
        with SweepStore(path) as st, st._guard("recording the sweep"), st._transaction() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES ('sweep_owner', ?)", (owner,))
        try:
            yield
        finally:
            with contextlib.suppress(DuelboundError, sqlite3.Error), SweepStore(path) as st, \
                    st._transaction() as c:
                c.execute("DELETE FROM meta WHERE key = 'sweep_owner'")
    finally:
        os.close(fd)  # releases the flock
