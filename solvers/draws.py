"""C* on many posterior draws: the exact evaluator and the workers that share the draws.

Every draw is evaluated exactly: draws are grouped by tournament (the signs of µ − 1/2),
one family-generation LP per (tournament, Copeland winner) is built and re-solved from its
previous basis for the other draws of the group (in the evidence variables x = q·d the
feasible set depends on the tournament only; [K16] Theorem 2, docs/math.md §5), the
vertex of an earlier solve is re-used while its basis stays optimal
(:class:`~.parametric.BasisTest`: one sparse solve, no dense rows), and a winner among
several gets ECW's threshold allocation, checked by the oracle, with no LP.  C^E* is the
sorted-threshold rule of [K16] Theorem 5 (no LP).  :func:`solve_cstar_draws` farms tasks of
whole tournaments out to a Dask cluster; :func:`auto_cstar_draws` decides how many draws
get C* from K alone.

Examples
--------
>>> import numpy as np
>>> from duelbound.solvers.draws import DrawEvaluator, tournament_ids
>>> P = np.array([[0.7, 0.8, 0.6], [0.75, 0.9, 0.55], [0.3, 0.8, 0.6]])  # 3 draws, K = 3
>>> tournament_ids(P).tolist()
[1, 1, 0]
>>> ev = DrawEvaluator(3)
>>> bool(np.all(ev.cstar(P, tournament_ids(P)) > 0)), ev.lp_solves <= 3
(True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..cluster import dask_client, describe
from ..theory.errors import DuelboundError
from ..theory.matrix import PreferenceMatrix
from .cstar import FamilyModel, solve_winner
from .ecw import ecw_core
from .formulations import pair_index
from .lp import available_backend
from .oracle import kl_half_core, losses_core, regret_core
from .parametric import BasisTest, pair_costs_core

__all__ = ["DrawEvaluator", "solve_cstar_draws", "estimate_draw_seconds",
           "estimate_cstar_seconds", "auto_cstar_draws", "resolve_cstar_draws", "announce",
           "tournament_ids", "square", "pair_position", "DRAW_SECONDS", "WORKER_EFFICIENCY",
           "AUTO_CSTAR_SECONDS", "MIN_CSTAR_DRAWS", "PARALLEL_MIN_SECONDS", "REUSE_MIN_GROUP",
           "TASK_SECONDS", "MIN_TASKS", "draw_chunks", "cstar_task"]

#: A solve's basis is kept for re-use (no LP while it stays optimal) only when more than
#: this many draws of the same tournament remain: its test (:class:`~.parametric.BasisTest`,
#: one sparse LU) costs about half a warm re-solve (7 ms against 15 ms at K = 100).
REUSE_MIN_GROUP = 8
_MAX_BASES = 16  # bases kept per (tournament, winner); a failed test costs ~0.3 ms at K = 100
#: Seconds of one posterior draw's C* with a tournament of its own (one core of the 2-core
#: machine, load 1-2; ``lower_bound_interval(..., workers=1)``'s C* seconds per LP model on
#: the first 10-60 of 1 000 draws), the slowest of three log shapes rounded up: at K = 100
#: 0.47 s (arena-style log of docs/uncertainty.md, 200 000 battles), 0.57 s
#: (``bench_interval.py --large``'s log), 0.24 s (a league of the users' shape); at K = 300
#: 22, 38 and 5.4 s; at K = 30 at most 0.017 s.  (Before the threshold rule and the
#: sparse basis test the K = 100 draw took 3.8 s.)
DRAW_SECONDS = {30: 0.02, 100: 0.6, 300: 40.0}
#: Speed-up of each extra worker process (two HiGHS processes on two cores slow each other:
#: 1.65× at K = 100, 1.85× at K = 300).
WORKER_EFFICIENCY = 0.75
#: ``cstar_draws="auto"`` solves C* on every draw when that is estimated to take at most
#: this many single-core seconds, otherwise on the first ``AUTO_CSTAR_SECONDS / t`` draws,
#: but never on fewer than :data:`MIN_CSTAR_DRAWS` (a rule of K alone: reproducible).
AUTO_CSTAR_SECONDS = 80.0
MIN_CSTAR_DRAWS = 20
#: Below this much estimated single-core LP work the draws stay in this process: a local
#: Dask cluster costs seconds to start and close (15 s on the loaded 2-core machine) and each
#: worker pays the imports and numba's cache; at K = 30 (all 1 000 draws, ~20 s estimated)
#: two workers took 40 s against 34 s serially at load 5 (benchmarks/bench_interval.py
#: --dask; 82 s against 49 s before tasks held several tournaments).
PARALLEL_MIN_SECONDS = 60.0
#: A C* task on Dask holds about this many estimated single-core seconds of draws (at K = 30
#: a draw's LP takes ~15-30 ms, a task's round trip through the scheduler several ms: 1 000
#: draws on 2 local workers took 34 s and 22 s in 63 tasks against 41 s and 28 s in 1 000,
#: alternated at load 5) ...
TASK_SECONDS = 2.0
#: ... but the draws are cut into at least this many tasks (when there are enough
#: tournaments), so that a cluster of many workers gets work for all of them.
MIN_TASKS = 64


def estimate_draw_seconds(K: int) -> float:
    """Rough single-core seconds of C* on one posterior draw with a tournament of its own:
    piecewise power law through the measurements of :data:`DRAW_SECONDS` (extended beyond
    them by the nearest piece); draws that share a tournament are much cheaper, so this is
    an upper estimate."""
    pts = sorted(DRAW_SECONDS.items())
    k = 1 + sum(1 for k0, _ in pts[1:-1] if K > k0)  # the piece [pts[k - 1], pts[k]]
    (k0, t0), (k1, t1) = pts[k - 1], pts[k]
    return t0 * (K / k0) ** (math.log(t1 / t0) / math.log(k1 / k0))


def estimate_cstar_seconds(K: int, n: int, workers: int) -> float:
    """Rough wall seconds of C* on ``n`` draws with their own tournaments in ``workers``
    processes (each worker after the first adds :data:`WORKER_EFFICIENCY` of one)."""
    return n * estimate_draw_seconds(K) / (1.0 + WORKER_EFFICIENCY * (min(workers, n) - 1))


def auto_cstar_draws(K: int, draws: int, tid: np.ndarray | None = None) -> int:
    """How many of ``draws`` posterior draws ``cstar_draws="auto"`` solves C* on.

    The largest n whose estimated LP work — one :func:`estimate_draw_seconds` per distinct
    tournament among the first n draws (``tid``: their tournament ids; without them every
    draw counts as a new one) — fits :data:`AUTO_CSTAR_SECONDS`, but at least
    :data:`MIN_CSTAR_DRAWS`: a rule of K and of the draws, never of the machine."""
    if tid is None:
        new = np.ones(draws)
    else:
        first = np.zeros(draws)
        first[np.unique(tid[:draws], return_index=True)[1]] = 1.0
        new = first
    fit = int(np.searchsorted(np.cumsum(new) * estimate_draw_seconds(K),
                              AUTO_CSTAR_SECONDS, side="right"))
    return draws if fit >= draws else min(draws, max(MIN_CSTAR_DRAWS, fit))


def resolve_cstar_draws(cstar_draws: int | str | None, K: int, draws: int,
                        tid: np.ndarray | None = None) -> int:
    """How many of the draws get C*: all (None or ``"all"``), the ``"auto"`` rule
    (:func:`auto_cstar_draws`), or the first ``cstar_draws`` (an integer >= 10)."""
    if cstar_draws is None or cstar_draws == "all":
        return draws
    if cstar_draws == "auto":
        return auto_cstar_draws(K, draws, tid)
    if isinstance(cstar_draws, str) or int(cstar_draws) < 10:
        raise DuelboundError(f"cstar_draws must be an integer >= 10, 'auto', 'all' or None, "
                             f"got {cstar_draws!r}")
    return min(int(cstar_draws), draws)


def announce(K: int, draws: int, n: int, tournaments: int, workers: int,
             scheduler: str | None = None) -> None:
    """Say on stderr, before the LPs, how many draws get C* and about how long it takes
    (on an external cluster: the time of one core, whose workers this process cannot
    count before it connects)."""
    import sys

    seconds = estimate_cstar_seconds(K, tournaments, 1 if scheduler else workers)
    if seconds > 20:
        took = f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
        where = (f"of one core, to share among the workers of {describe(scheduler, None)}"
                 if scheduler else f"on {workers} process(es)")
        print(f"duelbound: C* on {n} of {draws} draws ({tournaments} tournaments), about "
              f"{took} {where} (~{estimate_draw_seconds(K):.2g} s per "
              f"tournament at K = {K}; --cstar-draws N|all trades time for Monte Carlo "
              "error)", file=sys.stderr)


class DrawEvaluator:
    """C* and C^E* of many matrices, grouped by tournament, with warm LP re-solves.

    Per draw and Copeland winner i1, the cheapest exact answer first: a kept basis that is
    still optimal at the draw's costs (:class:`~.parametric.BasisTest`: one sparse solve,
    the vertex's value with no LP); with several winners ECW's threshold allocation, checked
    against R_{i1} by the oracle (C*_{i1} = C^E*_{i1}, [K16] Theorem 6 and (9); the path of
    ``lower_bound`` without certificate); else the family LP of the tournament, re-solved
    from the previous draw's basis.  (Seeding a new tournament's LP with the families that
    bound the previous one of the same winner saved 20-30 % of the family-generation rounds
    but made every LP larger: no faster at K = 30 or 100, so it is not done.)
    """

    def __init__(self, K: int, backend: str | None = None):
        self.K = K
        self.backend = available_backend(backend)
        self.lp_solves = 0
        self.models = 0
        self.reused = 0
        self.thresholds = 0
        self.cstar_seconds = 0.0  # wall time spent in cstar (a worker's: its busy time)

    def counts(self) -> dict[str, float]:
        """LP solves, LP models built, values from a kept basis, winners answered by the
        threshold, and the seconds spent on C* (summed over the workers: the busy time)."""
        return {"lp_solves": self.lp_solves, "models": self.models, "reused": self.reused,
                "thresholds": self.thresholds, "cstar_seconds": self.cstar_seconds}

    def add_counts(self, counts: dict[str, float]) -> None:
        """Add another evaluator's :meth:`counts` (a worker's) to these."""
        for key, value in counts.items():
            setattr(self, key, getattr(self, key) + value)

    def cheap(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(C^E*, Copeland winners) of every draw: no LP (C^E* is the sorted threshold of
        [K16] Theorem 5); the winners as a draws × K boolean array.  NaN / no winner for a
        bootstrap draw with a tie."""
        K, n = self.K, P.shape[0]
        ecw, is_winner = np.full(n, np.nan), np.zeros((n, K), dtype=bool)
        for s in range(n):
            if np.any(P[s] == 0.5):  # bootstrap tie: C* and C^E* undefined
                continue
            mu = square(P[s], K)
            d, r, L = kl_half_core(mu), regret_core(mu), losses_core(mu)
            is_winner[s] = L == L.min()
            ecw[s] = float(ecw_core(mu, d, r)[0].min())
        return ecw, is_winner

    def cstar(self, P: np.ndarray, tid: np.ndarray) -> np.ndarray:
        """C* of every draw of ``P`` (exact), tournament by tournament."""
        t0 = time.perf_counter()
        out = np.full(P.shape[0], np.nan)
        for t in np.unique(tid):
            idx = np.flatnonzero(tid == t)
            out[idx] = self._group(P[idx])
        self.cstar_seconds += time.perf_counter() - t0
        return out

    def _group(self, P: np.ndarray) -> np.ndarray:
        """C* of draws ``P`` of one tournament: min over the Copeland winners."""
        K = self.K
        models: dict[int, FamilyModel] = {}
        kept: dict[int, list[tuple[BasisTest, np.ndarray]]] = {}
        c = np.empty(K * K)
        out = np.full(P.shape[0], np.nan)
        for pos in range(P.shape[0]):
            if np.any(P[pos] == 0.5):
                continue
            mu = square(P[pos], K)
            d, r, L = kl_half_core(mu), regret_core(mu), losses_core(mu)
            pair_costs_core(L, d, c)
            winners = [int(w) for w in np.flatnonzero(L == L.min())]
            keep = P.shape[0] - pos > REUSE_MIN_GROUP
            out[pos] = min(self._winner(mu, d, r, i1, c, len(winners) > 1, models, kept, keep)
                           for i1 in winners)
        return out

    def _winner(self, mu: np.ndarray, d: np.ndarray, r: np.ndarray, i1: int, c: np.ndarray,
                several: bool, models: dict[int, FamilyModel],
                kept: dict[int, list[tuple[BasisTest, np.ndarray]]], keep: bool) -> float:
        """C*_{i1} of one draw (costs ``c``): a kept basis, the threshold rule, or the LP."""
        hit = next((X for test, X in kept.get(i1, ()) if test.optimal(c)), None)
        if hit is not None:
            self.reused += 1
            return float(c @ hit)
        if several:  # lower_bound's path without certificate: ECW's threshold, oracle-checked
            ws = solve_winner(PreferenceMatrix(mu), i1, backend=self.backend, need_basis=False)
            by_threshold = ws.stats["method"] == "threshold"  # else a cold LP solved it
            self.thresholds += by_threshold
            self.lp_solves += not by_threshold
            return float(ws.px.cost @ ws.x)
        px = pair_index(mu, d, r, i1)
        fm = models.get(i1)
        if fm is None:
            fm = models[i1] = FamilyModel(mu, i1, px, self.backend, backend_checked=True)
            self.models += 1
        else:
            fm.set_costs(mu, px)
        sol = fm.solve()
        self.lp_solves += 1
        slots = px.pairs[:, 0] * self.K + px.pairs[:, 1]
        X = np.zeros(self.K * self.K)
        X[slots] = np.clip(sol.v[:slots.size], 0.0, 1.0)
        cached = kept.setdefault(i1, [])
        if keep and len(cached) < _MAX_BASES:
            cached.append((BasisTest(fm.model.data, sol, slots, np.flatnonzero(c == 0.0)), X))
        return float(c @ X)


def tournament_ids(P: np.ndarray) -> np.ndarray:
    """Tournament id of every draw (equal ids: equal signs of µ − 1/2 on every pair)."""
    _, tid = np.unique(np.packbits(P > 0.5, axis=1), axis=0, return_inverse=True)
    return tid.ravel()


def square(p: np.ndarray, K: int) -> np.ndarray:
    """The K × K matrix with µ_ab = p (a < b, ``np.triu_indices`` order)."""
    iu = np.triu_indices(K, 1)
    mu = np.full((K, K), 0.5)
    mu[iu] = p
    mu[iu[1], iu[0]] = 1.0 - p
    return mu


def pair_position(K: int, i: int, j: int) -> int:
    """Position of the unordered pair {i, j} in ``np.triu_indices(K, 1)`` order."""
    a, b = min(i, j), max(i, j)
    return a * K - a * (a + 1) // 2 + (b - a - 1)


def draw_chunks(tid: np.ndarray, K: int) -> list[np.ndarray]:
    """The draws of each C* task: whole tournaments in the order of their ids, cut when a task
    holds ``min(TASK_SECONDS / t, n / MIN_TASKS)`` draws (t: :func:`estimate_draw_seconds`),
    at least one tournament.  A rule of K and of the draws, never of the workers: every
    cluster and the serial loop run the same tasks."""
    n = tid.size
    size = max(1, min(math.ceil(TASK_SECONDS / estimate_draw_seconds(K)),
                      math.ceil(n / MIN_TASKS)))
    chunks: list[np.ndarray] = []
    held: list[np.ndarray] = []
    for t in np.unique(tid):
        held.append(np.flatnonzero(tid == t))
        if sum(g.size for g in held) >= size:
            chunks.append(np.concatenate(held))
            held = []
    return chunks + ([np.concatenate(held)] if held else [])


def cstar_task(K: int, backend: str, P: np.ndarray, tid: np.ndarray
               ) -> tuple[np.ndarray, dict[str, float]]:
    """C* of one task's draws (:meth:`DrawEvaluator.cstar`, in a worker process) and its
    counts: only the draws go in (``len(P)`` × K(K−1)/2 floats) and only the values and
    five numbers come back; models and basis tests live and die in the worker."""
    ev = DrawEvaluator(K, backend)
    vals = ev.cstar(P, tid)
    return vals, ev.counts()


def solve_cstar_draws(ev: DrawEvaluator, P: np.ndarray, tid: np.ndarray, workers: int,
                      progress: bool, meanwhile: Callable[[], Any] = lambda: None,
                      scheduler: str | None = None) -> tuple[np.ndarray, Any]:
    """C* of the draws ``P`` and the result of ``meanwhile()``.

    The draws are cut into tasks of whole tournaments (:func:`draw_chunks`; the draws of a
    tournament share one LP model and its bases, and tournaments do not share anything, so
    the values are those of the serial loop whatever the cut).  The tasks
    (:func:`cstar_task`) go to the cluster at ``scheduler`` when one is given, else to a
    local cluster of ``workers`` processes when ``workers`` > 1 and the estimated LP work
    exceeds :data:`PARALLEL_MIN_SECONDS` (starting workers costs seconds); otherwise they
    run here.  ``meanwhile`` (the work that needs no LP) runs in this process while the
    workers solve.  A bar over the draws on stderr when ``progress``."""
    from tqdm import tqdm

    n = P.shape[0]
    out = np.full(n, np.nan)
    chunks = draw_chunks(tid, ev.K)
    spread = scheduler is not None or (
        workers > 1 and len(chunks) > 1
        and n * estimate_draw_seconds(ev.K) >= PARALLEL_MIN_SECONDS)
    where = describe(scheduler, min(workers, len(chunks))) if spread else "this process"
    with tqdm(total=n, desc=f"C* posterior draws (K = {ev.K}, {where})", unit="draw",
              leave=False, disable=None if progress else True) as bar:
        if not spread:
            other = meanwhile()
            for idx in chunks:
                out[idx] = ev.cstar(P[idx], tid[idx])
                bar.update(idx.size)
            return out, other
        with dask_client(scheduler, min(workers, len(chunks))) as client:
            from dask.distributed import as_completed

            futures = [client.submit(cstar_task, ev.K, ev.backend, P[idx], tid[idx],
                                     pure=False) for idx in chunks]
            draws_of = {fut.key: idx for fut, idx in zip(futures, chunks)}
            other = meanwhile()
            for fut in as_completed(futures):
                vals, counts = fut.result()
                idx = draws_of[fut.key]
                out[idx] = vals
                ev.add_counts(counts)
                bar.update(idx.size)
    return out, other
