"""Resumable simulation and bound sweeps on Dask, stored in SQLite.

A sweep is a grid of tasks — one per (matrix, algorithm, run) — executed with
Dask distributed (an in-process ``LocalCluster`` by default, or an existing
cluster given by its scheduler address) and committed one by one to a
:class:`~duelbound.checks.sweep.store.SweepStore`.  Run r of (matrix, algorithm) uses
the seed :func:`derive_seed` ``(S, matrix hash, algorithm, r)``, so a task's
result does not depend on where or when it ran, and re-running the same sweep
skips every task already committed.

Failures: an exception inside a task is caught on the worker and returned as
data; a worker that dies surfaces as Dask's ``KilledWorker``.  Either way the
task is submitted once more (``retries=1``), then recorded as ``failed`` with
its error; the sweep goes on.

Examples
--------
>>> from duelbound.theory import datasets
>>> tasks = grid([datasets.load("cyclic")], ["uniform"], T=100, runs=2, seed=0)
>>> [(t.algorithm, t.run) for t in tasks]
[('uniform', 0), ('uniform', 1)]
>>> tasks[0].seed == derive_seed(0, tasks[0].matrix_hash, "uniform", 0)
True
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import socket
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DuelboundError
from ...frames import (
    html_table,
    markdown_table,
    records_to_frame,
    require_pandas,
    short_repr,
)
from ...theory.matrix import PreferenceMatrix
from ...theory.regret import CONVENTIONS
from .cluster import dask_client, local_cluster_config, queueing_safe
from .report import bounds_report_table, plot_report, report_table, summarise
from .store import SweepStore, sweep_lock

__all__ = ["SweepTask", "SweepResult", "derive_seed", "task_key", "grid", "sweep",
           "bounds_sweep", "execute_run", "execute_bounds", "resolve_algorithm",
           "local_cluster_config", "summarise", "report_table", "bounds_report_table",
           "plot_report"]

#: Dask task-key prefix of sweep tasks (one task group: the scheduler queues them).
KEY_PREFIX = "duelbound_sweep"

_SEED_BITS = 63


def derive_seed(sweep_seed: int, matrix_hash: str, algorithm: str, run: int) -> int:
    """Seed of run ``run`` of ``algorithm`` on a matrix: SHA-256 of the four, 63 bits.

    A hash (not a counter) so that adding matrices, algorithms or runs to a sweep
    never changes the seeds of the tasks already in it.
    """
    text = f"duelbound-sweep|{int(sweep_seed)}|{matrix_hash}|{algorithm}|{int(run)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> (64 - _SEED_BITS)


def _canonical_params(params: dict[str, Any] | None) -> dict[str, Any]:
    return json.loads(json.dumps(params or {}, sort_keys=True))


def task_key(matrix_hash: str, algorithm: str, params: dict[str, Any], T: int, sweep_seed: int,
             run: int, checkpoints: Sequence[int] | None = None) -> str:
    """Identity of a task in the store (hex SHA-256 of everything its result depends on)."""
    ident = json.dumps([matrix_hash, algorithm, params, int(T), int(sweep_seed), int(run),
                        None if checkpoints is None else [int(c) for c in checkpoints]],
                       sort_keys=True)
    return hashlib.sha256(ident.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class SweepTask:
    """One run of a sweep: (matrix, algorithm, params, T, sweep seed, run) and its seed."""

    task_key: str
    matrix_hash: str
    algorithm: str
    params: dict[str, Any]
    T: int
    sweep_seed: int
    run: int
    seed: int
    checkpoints: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def grid(matrices: Sequence[PreferenceMatrix], algorithms: Sequence[str], T: int, runs: int,
         seed: int, params: dict[str, dict[str, Any]] | None = None,
         checkpoints: Sequence[int] | None = None) -> list[SweepTask]:
    """The tasks of a sweep, in order matrix × algorithm × run (duplicates removed).

    ``params`` maps an algorithm name to its parameter dict (algorithms not in it
    use their defaults).
    """
    if int(T) < 1:
        raise DuelboundError(f"T must be a positive integer, got {T}")
    if int(runs) < 1:
        raise DuelboundError(f"runs must be a positive integer, got {runs}")
    if not algorithms:
        raise DuelboundError("give at least one algorithm")
    params = params or {}
    unknown = set(params) - set(algorithms)
    if unknown:
        raise DuelboundError(f"parameters given for algorithms not in the sweep: "
                             f"{', '.join(sorted(unknown))}")
    for alg in algorithms:  # fail before starting a cluster, not in every task
        if ":" not in alg:
            from ..simulate.simulator import get_algorithm

            get_algorithm(alg).arguments(params.get(alg))
    cps = None if checkpoints is None else tuple(int(c) for c in checkpoints)
    tasks, seen = [], set()
    for M in matrices:
        h = M.content_hash()
        for alg in algorithms:
            p = _canonical_params(params.get(alg))
            for r in range(int(runs)):
                key = task_key(h, alg, p, T, seed, r, cps)
                if key in seen:  # the same matrix given twice
                    continue
                seen.add(key)
                tasks.append(SweepTask(key, h, alg, p, int(T), int(seed), r,
                                       derive_seed(seed, h, alg, r), cps))
    return tasks


# -- what runs on a worker -------------------------------------------------------------------
def resolve_algorithm(algorithm: str) -> Callable[..., Any]:
    """The callable that runs ``algorithm``: ``run_single`` for a simulator name, or a plugin.

    A plugin is written ``"module:callable"``; it is imported *on the worker*, so the
    module must be importable there (installed, or on the workers' ``PYTHONPATH``).
    It is called as ``f(M, T, seed, params, checkpoints)`` and returns a
    ``RunRecord`` (or a dict with the same fields).
    """
    if ":" in algorithm:
        mod_name, _, attr = algorithm.partition(":")
        try:
            return getattr(importlib.import_module(mod_name), attr)
        except (ImportError, AttributeError) as exc:
            raise DuelboundError(f"cannot load plugin algorithm {algorithm!r}: {exc}") from None
    from ..simulate.simulator import run_single

    def _run(M: PreferenceMatrix, T: int, seed: int, params: dict, checkpoints: Any) -> Any:
        return run_single(M, algorithm, T, seed, params=params or None, checkpoints=checkpoints)

    return _run


def _plain(obj: Any) -> Any:
    """numpy arrays/scalars -> lists/floats (recursively)."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def _normalise_record(rec: Any) -> dict[str, Any]:
    d = rec.to_dict() if hasattr(rec, "to_dict") else dict(rec)
    out = {k: _plain(d[k]) for k in ("checkpoints", "regret", "final_regret", "counts",
                                     "wall_time")}
    out["wins"] = _plain(d.get("wins"))
    out["final_regret"] = {c: float(v) for c, v in out["final_regret"].items()}
    return out


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _guarded(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``fn`` and turn any exception into data (it then needs no import on the client)."""
    t0 = time.perf_counter()
    try:
        out = fn()
        out.setdefault("wall_time", time.perf_counter() - t0)
        return {"status": "ok", "record": out, "worker": _worker_name()}
    except Exception as exc:  # noqa: BLE001 -- every failure of a task is recorded, not raised
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        return {"status": "error", "error": f"{type(exc).__name__}: {exc}",
                "traceback": "".join(tb[-6:]), "worker": _worker_name()}


def execute_run(M: PreferenceMatrix, algorithm: str, T: int, seed: int,
                params: dict[str, Any], checkpoints: Sequence[int] | None) -> dict[str, Any]:
    """One sweep task, as run on a Dask worker: ``{"status", "record" | "error", "worker"}``."""
    def _go() -> dict[str, Any]:
        fn = resolve_algorithm(algorithm)
        return _normalise_record(fn(M, T, seed, params, None if checkpoints is None
                                    else list(checkpoints)))
    return _guarded(_go)


def execute_bounds(M: PreferenceMatrix) -> dict[str, Any]:
    """One bound task: C* ([K16] Th. 2), C^E* ([K16] §4.2) and the upper-bound terms of ``M``.

    The record holds ``c_star``, ``certificate`` (status of C*), ``c_ecw`` and ``entry``:
    the row of :func:`duelbound.solvers.bound_table.bound_table` for ``M`` (komiyama
    convention; C* is computed once, inside it).
    """
    def _go() -> dict[str, Any]:
        from ...solvers import bound_table, ecw_bound  # the LP solvers: on the worker only
        t0 = time.perf_counter()
        entry = bound_table([M]).entries[0]
        ecw = ecw_bound(M, enclose=False)  # one per sweep point: no exact enclosure
        return {"c_star": float(entry.lower), "certificate": entry.certificate,
                "c_ecw": float(ecw.value), "entry": _plain(entry.to_dict()),
                "ecw_bound": _plain(ecw.to_dict()), "wall_time": time.perf_counter() - t0}
    return _guarded(_go)


@dataclass
class SweepResult:
    """What a sweep did, and a handle on its store.

    Attributes
    ----------
    store : path of the SQLite store.
    total, skipped, completed : tasks of the grid, already in the store, finished now.
    failed : one dict per task recorded as failed now (task fields, ``error``, ``attempts``).
    elapsed : wall seconds of the execution phase (cluster start-up excluded).
    throughput : completed tasks per second.
    kind : ``"runs"`` or ``"bounds"``.
    """

    store: str
    total: int
    skipped: int
    completed: int
    failed: list[dict[str, Any]] = field(default_factory=list)
    elapsed: float = 0.0
    startup: float = 0.0
    kind: str = "runs"
    keys: list[str] = field(default_factory=list, repr=False)

    @property
    def throughput(self) -> float:
        return self.completed / self.elapsed if self.elapsed > 0 else math.nan

    @property
    def ok(self) -> bool:
        return not self.failed

    def records(self, status: str | None = "ok") -> list[dict[str, Any]]:
        """The rows of this sweep's tasks in the store (all of them, not only the new ones)."""
        with SweepStore(self.store, readonly=True) as st:
            if self.kind == "bounds":
                rows = st.bounds(status)
                return [r for r in rows if r["matrix_hash"] in set(self.keys)]
            keys = set(self.keys)
            return [r for r in st.runs(status) if r["task_key"] in keys]

    def dataframe(self, status: str | None = "ok") -> Any:
        """:meth:`records` as a pandas DataFrame, one row per stored row (needs
        ``duelbound[pandas]``); :meth:`to_pandas` gives the tidy form."""
        return records_to_frame(self.records(status))

    def to_pandas(self, kind: str = "final", status: str | None = "ok") -> Any:
        """The grid's rows in the store as a tidy :class:`pandas.DataFrame`.

        Parameters
        ----------
        kind : {"final", "regret"}
            Simulation sweeps: ``"final"`` gives one row per (run, convention) with the final
            regret R(T); ``"regret"`` one row per (run, checkpoint t, convention).  Bound
            sweeps have one row per matrix (C*, its certificate status, C^E*) whatever
            ``kind``.
        status : {"ok", "failed", None}
            Which rows (None: all; failed rows have no regret, only ``error``).

        Returns
        -------
        pandas.DataFrame
            Columns ``matrix`` (name), ``matrix_hash``, ``K``, ``algorithm``, ``params``
            (JSON text), ``T``, ``run``, ``seed``, ``status``, ``convention``, ``t``,
            ``regret``, ``wall_time``, ``worker``, ``error``.

        Raises
        ------
        DuelboundError
            pandas is missing (the message names the extra ``duelbound[pandas]``).
        """
        require_pandas()
        if kind not in ("final", "regret"):
            raise DuelboundError(f"unknown kind {kind!r}: use 'final' or 'regret'")
        return records_to_frame(self._tidy(kind, status))

    def _tidy(self, kind: str, status: str | None) -> list[dict[str, Any]]:
        with SweepStore(self.store, readonly=True) as st:
            names = st.matrix_names()
            sizes = {h: M.K for h, M in st.matrices().items()}
        rows = self.records(status)
        if self.kind == "bounds":
            return [{"matrix": names.get(r["matrix_hash"]), "matrix_hash": r["matrix_hash"],
                     "K": sizes.get(r["matrix_hash"]), "status": r["status"],
                     "c_star": r["c_star"], "certificate": (r["result"] or {}).get(
                         "certificate"), "c_ecw": r["c_ecw"], "wall_time": r["wall_time"],
                     "error": r["error"]} for r in rows]
        out = []
        for r in rows:
            ident = {"matrix": names.get(r["matrix_hash"]), "matrix_hash": r["matrix_hash"],
                     "K": sizes.get(r["matrix_hash"]), "algorithm": r["algorithm"],
                     "params": json.dumps(r["params"], sort_keys=True), "T": r["T"],
                     "run": r["run"], "seed": r["seed"], "status": r["status"],
                     "wall_time": r["wall_time"], "worker": r["worker"], "error": r["error"]}
            if r["status"] != "ok":
                out.append(ident)
            elif kind == "final":
                out += [{**ident, "convention": c, "regret": r[f"final_{c}"]}
                        for c in CONVENTIONS]
            else:
                out += [{**ident, "convention": c, "t": t, "regret": y}
                        for c in CONVENTIONS if c in r["regret"]
                        for t, y in zip(r["checkpoints"], r["regret"][c])]
        return out

    def summary_rows(self) -> list[dict[str, Any]]:
        """Per (matrix, algorithm, params, T) of this grid: finished runs, failures, mean and
        std of R(T) (komiyama); per matrix for a bound sweep.  No solver is called."""
        import numpy as np

        with SweepStore(self.store, readonly=True) as st:
            names = st.matrix_names()
        if self.kind == "bounds":
            return [{"matrix": names.get(r["matrix_hash"]), "status": r["status"],
                     "C*": r["c_star"], "C^E*": r["c_ecw"]} for r in self.records(None)]
        groups: dict[tuple, list] = {}
        for r in self.records(None):
            params = ", ".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
            key = (names.get(r["matrix_hash"]), r["algorithm"] + (f" ({params})"
                                                                  if params else ""), r["T"])
            groups.setdefault(key, []).append(r)
        out = []
        for (matrix, alg, T), rows in groups.items():
            v = np.array([r["final_komiyama"] for r in rows if r["status"] == "ok"], float)
            out.append({"matrix": matrix, "algorithm": alg, "T": T, "runs": int(v.size),
                        "failed": len(rows) - int(v.size),
                        "mean R(T)": float(v.mean()) if v.size else None,
                        "std": float(v.std(ddof=1)) if v.size > 1 else None})
        return out

    def _caption(self) -> str:
        rate = "" if not self.completed else f", {self.throughput:.3g} tasks/s"
        return (f"{self.kind} sweep: {self.total} tasks, {self.completed} done now, "
                f"{self.skipped} already stored, {len(self.failed)} failed{rate} "
                f"(store {Path(self.store).name})")

    def __repr__(self) -> str:
        return short_repr("SweepResult", store=self.store, kind=self.kind, total=self.total,
                          completed=self.completed, skipped=self.skipped,
                          failed=len(self.failed), elapsed=self.elapsed)

    def _repr_html_(self) -> str:
        rows = self.summary_rows()
        return html_table(rows, list(rows[0]) if rows else ["matrix"],
                          caption=self._caption())

    def _repr_markdown_(self) -> str:
        rows = self.summary_rows()
        return markdown_table(rows, list(rows[0]) if rows else ["matrix"],
                              caption=self._caption())

    def to_dict(self) -> dict[str, Any]:
        return {"store": self.store, "kind": self.kind, "total": self.total,
                "skipped": self.skipped, "completed": self.completed, "failed": self.failed,
                "elapsed": self.elapsed, "startup": self.startup,
                "throughput": self.throughput}


def _progress(total: int, enabled: bool | None, desc: str) -> Any:
    from ..simulate.simulator import progress_bar

    return progress_bar(total, desc, enabled, unit="task")


class _Capacity:
    """Threads of the cluster's live workers, refreshed at most every ``ttl`` seconds."""

    def __init__(self, client: Any, ttl: float = 1.0) -> None:
        self.client, self.ttl, self.n, self.at = client, ttl, 0, -math.inf

    def get(self, force: bool = False) -> int:
        if force or time.monotonic() - self.at > self.ttl:
            self.n = sum(self.client.nthreads().values())
            self.at = time.monotonic()
        return self.n


def _execute(client: Any, jobs: dict[str, tuple[Callable[..., Any], tuple]],
             on_done: Callable[[str, dict[str, Any], int], None], retries: int,
             bar: Any, worker_wait: float = 300.0,
             revive: Callable[[], int] = lambda: 0) -> int:
    """Run every job, resubmitting a failed one up to ``retries`` times; report each outcome.

    ``jobs`` maps a key to (function, args); ``on_done(key, outcome, attempts)`` is called
    on the client, in completion order, with ``outcome["status"]`` "ok" or "error".
    Returns the number of failures.

    How many tasks are in flight decides who is blamed when a worker process dies: Dask
    fails *every* task assigned to the dead worker.  On a scheduler with the settings of
    :func:`local_cluster_config` (checked by :func:`queueing_safe`) a window of
    4 × threads tasks is submitted; being more than 2 × threads tasks of one group, they
    are "root-ish" and wait in the scheduler's queue, from which each worker thread gets
    one task at a time — so only the running task is blamed, and a freed thread is fed
    by the scheduler without waiting for the client.  When at most 2 × threads tasks are
    left (too few to be queued), or the scheduler runs other settings, the client itself
    keeps one task per worker thread in flight (a client round trip per task).
    ``revive()`` is called every 5 s and while no worker is available (local cluster:
    replaces worker processes that are gone for good, see :class:`Reviver`).
    """
    from collections import deque

    from dask.distributed import wait

    def submit(batch: list[tuple[str, int]]) -> None:
        # one client.map per function: the batch reaches the scheduler as one graph, so
        # its tasks are counted together when the scheduler decides whether to queue them
        by_fn: dict[Any, list[tuple[str, int]]] = {}
        for key, attempt in batch:
            by_fn.setdefault(jobs[key][0], []).append((key, attempt))
        for fn, items in by_fn.items():
            columns = list(zip(*(jobs[key][1] for key, _ in items)))
            futs = client.map(fn, *columns, key=[f"{KEY_PREFIX}-{k}-{a}" for k, a in items],
                              pure=False, retries=0)
            pending.update(zip(futs, items))

    def outcome(fut: Any) -> dict[str, Any]:
        try:
            out = fut.result()
        except Exception as exc:  # the task raised, KilledWorker, CancelledError, lost data
            return {"status": "error", "error": f"{type(exc).__name__}: {exc}", "worker": None}
        if not isinstance(out, dict):
            return {"status": "error", "error": f"task returned {type(out).__name__}",
                    "worker": None}
        return out

    queued = queueing_safe(client)
    queue = deque((key, 0) for key in jobs)
    pending: dict[Any, tuple[str, int]] = {}
    capacity = _Capacity(client)
    failures = 0
    idle_since = None
    revived_at = time.monotonic()

    def limit() -> int:
        threads = capacity.get()
        if queued and len(queue) + len(pending) > 2 * threads:
            return 4 * threads
        return threads

    while queue or pending:
        free = limit() - len(pending)
        if queue and free > 0:
            submit([queue.popleft() for _ in range(min(free, len(queue)))])
        if not pending:  # no live worker (all restarting, or none joined yet)
            idle_since = idle_since or time.monotonic()
            if revive():
                idle_since = None
            elif time.monotonic() - idle_since > worker_wait:
                raise DuelboundError(f"no Dask worker available for {worker_wait:.0f} s")
            time.sleep(0.1)
            capacity.at = -math.inf
            continue
        idle_since = None
        if time.monotonic() - revived_at > 5.0:  # replace workers lost for good, if any
            revived_at = time.monotonic()
            if revive():
                capacity.at = -math.inf
        # wait() with a timeout, polled, rather than as_completed: a streaming
        # as_completed that futures are added to one by one was seen to miss a finished
        # future and block forever (benchmarks/bench_sweep.py with 200 tiny tasks)
        try:
            done, _ = wait(list(pending), timeout=1.0, return_when="FIRST_COMPLETED")
        except TimeoutError:
            continue
        for fut in done:
            key, attempt = pending.pop(fut)
            out = outcome(fut)
            fut.release()
            if out["status"] != "ok" and attempt < retries:
                queue.appendleft((key, attempt + 1))
                capacity.at = -math.inf  # a worker may have died: recount before submitting
                continue
            failures += out["status"] != "ok"
            on_done(key, out, attempt + 1)
            bar.update(1)
            if failures:
                bar.set_postfix(failed=failures, refresh=False)
    return failures


def _warm_up(tasks: Iterator[SweepTask] | Any, by_hash: dict[str, PreferenceMatrix],
             progress: bool | None) -> None:
    """Compile the simulator's runners of the grid in the client when numba's on-disk cache
    lacks them (with the one-line notice), so that the local workers load them from the
    cache instead of each compiling them."""
    from ..simulate.simulator import compiled_code_cached, feedback_enabled, warm_up

    first: dict[str, SweepTask] = {}
    for t in tasks:
        if ":" not in t.algorithm:
            first.setdefault(t.algorithm, t)
    for alg, t in first.items():
        if compiled_code_cached(alg) is not True:
            warm_up(by_hash[t.matrix_hash], alg, t.params or None,
                    notice=feedback_enabled(progress))


def _failed_rows(store: str | Path, key: str) -> list[dict[str, Any]]:
    with SweepStore(store, readonly=True) as st:
        return [dict(r) for r in st._conn.execute(
            "SELECT error, attempts FROM runs WHERE task_key = ? AND status = 'failed'", (key,))]


def _prepare(store: str | Path, matrices: Sequence[PreferenceMatrix]) -> None:
    with SweepStore(store) as st:
        for M in matrices:
            st.add_matrix(M)


def sweep(matrices: Sequence[PreferenceMatrix], algorithms: Sequence[str], T: int, runs: int,
          seed: int, store: str | Path, *, params: dict[str, dict[str, Any]] | None = None,
          checkpoints: Sequence[int] | None = None, scheduler: str | None = None,
          workers: int | None = None, retries: int = 1, retry_failed: bool = True,
          progress: bool | None = False) -> SweepResult:
    """Run (or resume) a simulation sweep; every finished task is committed to ``store``.

    Parameters
    ----------
    matrices, algorithms, T, runs, seed
        The grid: one task per (matrix, algorithm, run r < runs); run r uses the
        seed ``derive_seed(seed, matrix.content_hash(), algorithm, r)`` and calls
        ``duelbound.checks.simulate.simulator.run_single`` (or a ``"module:callable"`` plugin).
    store : path of the SQLite store (created if missing).
    params : algorithm name -> parameter dict passed to ``run_single``.
    checkpoints : t values at which the cumulative regret is recorded (default: the
        simulator's log-spaced ones).
    scheduler : address ``tcp://host:port`` of an existing Dask scheduler; default: an
        in-process ``LocalCluster`` with ``workers`` processes (default: the CPU count).
    retries : resubmissions of a failing task before it is recorded as failed.
    retry_failed : re-run tasks recorded as failed by an earlier sweep (else skip them).
    progress : tqdm bar on stderr (True/False; None: only on a terminal).

    Returns
    -------
    SweepResult
        Counts, failures, timing; ``.records()`` loads the rows of the whole grid.

    Notes
    -----
    Only the client process writes the store (one transaction per task), so the
    store may live on a local disk even when the workers are on other hosts.
    """
    tasks = grid(matrices, algorithms, T, runs, seed, params, checkpoints)
    with sweep_lock(store):
        return _run_grid(tasks, matrices, store, scheduler=scheduler, workers=workers,
                         retries=retries, retry_failed=retry_failed, progress=progress)


def _run_grid(tasks: list[SweepTask], matrices: Sequence[PreferenceMatrix], store: str | Path,
              *, scheduler: str | None, workers: int | None, retries: int, retry_failed: bool,
              progress: bool | None) -> SweepResult:
    """The body of :func:`sweep`, run while the store is locked."""
    _prepare(store, matrices)
    with SweepStore(store) as st:
        old_failed = set() if retry_failed else st.keys("failed")
        done = st.keys("ok") | old_failed
    by_hash = {M.content_hash(): M for M in matrices}
    todo = {t.task_key: t for t in tasks if t.task_key not in done}
    result = SweepResult(str(store), total=len(tasks), skipped=len(tasks) - len(todo),
                         completed=0, keys=[t.task_key for t in tasks])
    # failures kept from an earlier sweep are still failures of this grid
    result.failed += [{**t.to_dict(), "error": "(earlier sweep) " + r["error"],
                       "attempts": r["attempts"]}
                      for t in tasks if t.task_key in old_failed
                      for r in _failed_rows(store, t.task_key)]
    if not todo:
        return result
    jobs = {k: (execute_run, (by_hash[t.matrix_hash], t.algorithm, t.T, t.seed, t.params,
                              t.checkpoints)) for k, t in todo.items()}
    if scheduler is None:  # local workers share this machine's numba cache: fill it once
        _warm_up(todo.values(), by_hash, progress)
    with SweepStore(store) as st:
        def on_done(key: str, out: dict[str, Any], attempts: int) -> None:
            t = todo[key].to_dict()
            if out["status"] == "ok":
                st.write_run(t, status="ok", attempts=attempts, record=out["record"],
                             worker=out.get("worker"))
                result.completed += 1
            else:
                st.write_run(t, status="failed", attempts=attempts, error=out["error"],
                             worker=out.get("worker"))
                result.failed.append({**t, "error": out["error"], "attempts": attempts})

        t0 = time.perf_counter()
        with dask_client(scheduler, workers) as (client, revive):
            result.startup = time.perf_counter() - t0
            t1 = time.perf_counter()
            with _progress(len(todo), progress, "sweep") as bar:
                _execute(client, jobs, on_done, retries, bar, revive=revive)
            result.elapsed = time.perf_counter() - t1
    return result


def bounds_sweep(matrices: Sequence[PreferenceMatrix], store: str | Path, *,
                 scheduler: str | None = None, workers: int | None = None, retries: int = 1,
                 retry_failed: bool = True, progress: bool | None = False) -> SweepResult:
    """C* and C^E* of many matrices as Dask tasks, committed to ``store`` (table ``bounds``).

    Resumable like :func:`sweep`: matrices whose bounds are in the store are skipped.
    """
    if not matrices:
        raise DuelboundError("give at least one matrix")
    with sweep_lock(store):
        return _run_bounds(matrices, store, scheduler=scheduler, workers=workers,
                           retries=retries, retry_failed=retry_failed, progress=progress)


def _run_bounds(matrices: Sequence[PreferenceMatrix], store: str | Path, *,
                scheduler: str | None, workers: int | None, retries: int, retry_failed: bool,
                progress: bool | None) -> SweepResult:
    """The body of :func:`bounds_sweep`, run while the store is locked."""
    _prepare(store, matrices)
    with SweepStore(store) as st:
        done = st.keys("ok", "bounds") | (set() if retry_failed
                                          else st.keys("failed", "bounds"))
    by_hash = {M.content_hash(): M for M in matrices}
    todo = {h: M for h, M in by_hash.items() if h not in done}
    result = SweepResult(str(store), total=len(by_hash), skipped=len(by_hash) - len(todo),
                         completed=0, kind="bounds", keys=list(by_hash))
    if not todo:
        return result
    with SweepStore(store) as st:
        def on_done(h: str, out: dict[str, Any], attempts: int) -> None:
            if out["status"] == "ok":
                st.write_bounds(h, status="ok", attempts=attempts, result=out["record"])
                result.completed += 1
            else:
                st.write_bounds(h, status="failed", attempts=attempts, error=out["error"])
                result.failed.append({"matrix_hash": h, "name": todo[h].name,
                                      "error": out["error"], "attempts": attempts})

        t0 = time.perf_counter()
        with dask_client(scheduler, workers) as (client, revive):
            result.startup = time.perf_counter() - t0
            t1 = time.perf_counter()
            with _progress(len(todo), progress, "bounds") as bar:
                _execute(client, {h: (execute_bounds, (M,)) for h, M in todo.items()},
                         on_done, retries, bar, revive=revive)
            result.elapsed = time.perf_counter() - t1
    return result


# -- reports ---------------------------------------------------------------------------------
