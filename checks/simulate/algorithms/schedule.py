"""Event schedule of confidence-bound crossings: per-duel cost O(K) instead of O(K²).

The UCB-type algorithms (RUCB, CCB, D-TS) compare every pair's confidence bound
µ̂_ij ± sqrt(α ln t / N_ij) with 1/2 at every step. One duel changes one pair's counts,
but the radius grows with t for *all* pairs. With the counts of a pair fixed, each
comparison they make is monotone in t (the radius only grows, and every floating-point
operation in it — log, product, quotient, sqrt, sum — is monotone), so a pair's status
changes at most once between two duels of that pair, at a time that can be computed
when the pair is dueled. :func:`flip_time` finds that first t *with the algorithm's own
floating-point expression* (a closed-form estimate, then exact evaluation around it),
so the status seen at every step is bit for bit the one a full recount would see.

The times wait in a binary min-heap of keys ``t·K² + p`` (pair p = i·K + j);
a pair re-dueled before its time simply gets a new time, the old key is discarded when
popped (``due`` holds each pair's current time; 0 = nothing scheduled). The heap is
rebuilt from ``due`` when stale keys fill it, so memory stays O(K²).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["ABOVE", "AT_LEAST", "U_AT_LEAST", "L_BELOW", "L_AT_MOST", "holds", "flip_time",
           "new_schedule", "schedule", "pop_due", "refresh", "refresh_slot",
           "heap_push", "heap_pop"]

# Predicates on pair (i, j) at time t, each False → True as t grows with the counts fixed.
ABOVE = 0       # u_ij > 1/2, sqrt-free form of common.ucb_above_half (D-TS)
AT_LEAST = 1    # u_ij ≥ 1/2, sqrt-free form of common.ucb_at_least_half (RUCB)
U_AT_LEAST = 2  # U_ij ≥ 1/2 with U from common.confidence_bounds (CCB)
L_BELOW = 3     # L_ij < 1/2, i.e. not (L_ij ≥ 1/2) (CCB)
L_AT_MOST = 4   # L_ij ≤ 1/2, i.e. not (L_ij > 1/2) (CCB)


@nb.njit(cache=True)
def holds(kind: int, W: np.ndarray, i: int, j: int, alpha: float, t: float) -> bool:
    """The predicate ``kind`` at time t, with exactly the algorithms' float expressions."""
    n = W[i, j] + W[j, i]
    if n == 0:
        return True  # U = 1, L = 0 (x/0 := 1 and 0): every predicate holds
    lt = math.log(t) if t > 1.0 else 0.0
    if kind == ABOVE:
        diff = 0.5 * n - W[i, j]
        return diff < 0.0 or diff * diff < (alpha * lt) * n
    if kind == AT_LEAST:
        diff = 0.5 * n - W[i, j]
        return diff <= 0.0 or not ((alpha * lt) * n < diff * diff)
    m = W[i, j] / n
    r = math.sqrt(alpha * lt / n)
    if kind == U_AT_LEAST:
        return m + r >= 0.5
    if kind == L_BELOW:
        return not (m - r >= 0.5)
    return not (m - r > 0.5)


@nb.njit(cache=True)
def flip_time(kind: int, W: np.ndarray, i: int, j: int, alpha: float, t0: int,
              T: int) -> int:
    """The first integer t ≥ t0 at which ``holds(kind, …, t)``, or T + 1 if none ≤ T.

    The crossing is where α ln t · N = (N/2 − W_ij)², i.e. t* = exp((N/2 − W_ij)²/(α N)):
    the exact first t is searched by evaluating :func:`holds` around t* (bisection on
    the monotone predicate, so a wrong estimate costs time, never a wrong answer).
    """
    if holds(kind, W, i, j, alpha, float(t0)):
        return t0
    if t0 >= T or not holds(kind, W, i, j, alpha, float(T)):
        return T + 1
    n = W[i, j] + W[j, i]
    diff = 0.5 * n - W[i, j]
    expo = diff * diff / (alpha * n) if alpha > 0.0 else math.inf
    lo = t0  # predicate False at lo, True at hi
    hi = T
    if expo < math.log(float(T)) + 1.0:
        guess = int(math.exp(expo))
        a = max(guess - 2, lo)
        b = min(guess + 2, hi)
        if a > lo and not holds(kind, W, i, j, alpha, float(a)):
            lo = a
        if b < hi and b > lo and holds(kind, W, i, j, alpha, float(b)):
            hi = b
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if holds(kind, W, i, j, alpha, float(mid)):
            hi = mid
        else:
            lo = mid
    return hi


@nb.njit(cache=True)
def new_schedule(npairs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(heap, size holder [1], due time per pair) for ``npairs`` pair slots."""
    return (np.empty(2 * npairs + 64, np.int64), np.zeros(1, np.int64),
            np.zeros(npairs, np.int64))


@nb.njit(cache=True)
def heap_push(heap: np.ndarray, size: np.ndarray, key: int) -> None:
    k = size[0]
    size[0] = k + 1
    while k > 0:
        parent = (k - 1) >> 1
        if heap[parent] <= key:
            break
        heap[k] = heap[parent]
        k = parent
    heap[k] = key


@nb.njit(cache=True)
def heap_pop(heap: np.ndarray, size: np.ndarray) -> int:
    top = heap[0]
    n = size[0] - 1
    size[0] = n
    last = heap[n]
    k = 0
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] >= last:
            break
        heap[k] = heap[c]
        k = c
    if n > 0:
        heap[k] = last
    return top


@nb.njit(cache=True)
def schedule(heap: np.ndarray, size: np.ndarray, due: np.ndarray, p: int, t: int,
             T: int) -> None:
    """Pair slot p changes status at time t (nothing is kept if t > T; t = 0 cancels)."""
    npairs = due.shape[0]
    if t <= 0 or t > T:
        due[p] = 0
        return
    due[p] = t
    if size[0] >= heap.shape[0]:  # full of stale keys: rebuild from the current times
        size[0] = 0
        for q in range(npairs):
            if due[q] > 0:
                heap_push(heap, size, due[q] * npairs + q)
    heap_push(heap, size, t * npairs + p)


@nb.njit(cache=True)
def pop_due(heap: np.ndarray, size: np.ndarray, due: np.ndarray, t: int) -> int:
    """A pair slot whose status changes at a time ≤ t (it is unscheduled), or -1."""
    npairs = due.shape[0]
    while size[0] > 0 and heap[0] // npairs <= t:
        key = heap_pop(heap, size)
        p = key % npairs
        if due[p] == key // npairs:
            due[p] = 0
            return p
    return -1


@nb.njit(cache=True)
def refresh(kind: int, W: np.ndarray, i: int, j: int, alpha: float, t: int, T: int,
            ok: np.ndarray, heap: np.ndarray, size: np.ndarray, due: np.ndarray) -> int:
    """:func:`refresh_slot` for slot p = i·K + j."""
    return refresh_slot(kind, W, i, j, alpha, t, T, ok, i * W.shape[0] + j, heap, size, due)


@nb.njit(cache=True)
def refresh_slot(kind: int, W: np.ndarray, i: int, j: int, alpha: float, t: int, T: int,
                 ok: np.ndarray, slot: int, heap: np.ndarray, size: np.ndarray,
                 due: np.ndarray) -> int:
    """Re-evaluate the predicate of ordered pair (i, j) at time t after its counts changed.

    ``ok[slot]`` ← the predicate at t; if False, its flip time is scheduled under
    ``slot``. Returns the change of ``ok[slot]`` (−1, 0 or +1), for per-arm counts.
    """
    was = ok[slot]
    now = holds(kind, W, i, j, alpha, float(t))
    ok[slot] = now
    schedule(heap, size, due, slot, 0 if now else flip_time(kind, W, i, j, alpha, t, T), T)
    return int(now) - int(was)
