"""Compiled helpers shared by the algorithms: log guards, confidence bounds, ties.

Every algorithm of the reference simulator is a compiled loop over
:func:`duelbound.checks.simulate.environment.duel`; the pieces they have in common live
here so that each algorithm module holds only its own selection rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np

from ....theory.errors import DuelboundError, UnknownNameError
from ....theory.kl import kl_bernoulli_scalar
from ....theory.kl import kl_half_scalar as kl_half_scalar_py

__all__ = ["log_guard", "loglog_guard", "confidence_bounds", "mu_hat",
           "random_argmax", "kl_half_scalar", "kl_scalar", "AlgorithmSpec",
           "ucb_above_half", "ucb_at_least_half", "lcb_at_most_half"]


@nb.njit(cache=True)
def log_guard(t: float) -> float:
    """max(log t, 1): docs/math.md §9's guard for early rounds where log t ≤ 1."""
    return max(math.log(t), 1.0) if t > 1.0 else 1.0


@nb.njit(cache=True)
def loglog_guard(t: float) -> float:
    """max(log log t, 1) (docs/math.md §9); log log t is undefined or ≤ 1 for t < e^e."""
    return max(math.log(log_guard(t)), 1.0)


@nb.njit(cache=True)
def confidence_bounds(W: np.ndarray, alpha: float, t: float, U: np.ndarray,
                      L: np.ndarray) -> None:
    """Fill U, L with the RUCB/CCB/D-TS bounds W/N ± sqrt(α ln t / N).

    [Z15] Alg. 1 lines 3–4 (and RUCB, [W16] Alg. 1): x/0 := 1 in U and 0 in L;
    u_ii = l_ii = 1/2. ln t uses the raw log (the bound only needs t ≥ 1; at
    t = 1, ln t = 0 and every compared pair sits at its empirical mean).
    """
    K = W.shape[0]
    lt = math.log(t) if t > 1.0 else 0.0
    for i in range(K):
        U[i, i] = 0.5
        L[i, i] = 0.5
        for j in range(K):
            if j == i:
                continue
            n = W[i, j] + W[j, i]
            if n == 0:
                U[i, j] = 1.0
                L[i, j] = 0.0
            else:
                m = W[i, j] / n
                r = math.sqrt(alpha * lt / n)
                U[i, j] = m + r
                L[i, j] = m - r


@nb.njit(cache=True)
def ucb_column(W: np.ndarray, c: int, alpha: float, lt: float, out: np.ndarray) -> None:
    """Column ``c`` of U into ``out``: u_jc = W_jc/n + sqrt(α ln t / n), 1 if unseen, ½ at j = c.

    The same expression as :func:`confidence_bounds` ([Z15] Algorithm 1 / RUCB's UCB),
    for the one column an algorithm's second arm is drawn from; ``lt`` is ln t (0 for t ≤ 1).
    """
    for j in range(W.shape[0]):
        n = W[j, c] + W[c, j]
        if j == c:
            out[j] = 0.5
        elif n == 0:
            out[j] = 1.0
        else:
            out[j] = W[j, c] / n + math.sqrt(alpha * lt / n)


@nb.njit(cache=True)
def mu_hat(W: np.ndarray, i: int, j: int) -> float:
    """µ̂_ij = W_ij / N_ij with 0/0 = 1/2 (docs/math.md §9)."""
    n = W[i, j] + W[j, i]
    return 0.5 if n == 0 else W[i, j] / n


@nb.njit(cache=True)
def random_argmax(values: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """Index of the maximum of ``values`` over ``mask`` (True entries), ties uniformly at
    random; -1 when the mask is empty. Uses one uniform draw only when there is a tie."""
    best = -np.inf
    count = 0
    arg = -1
    for k in range(values.shape[0]):
        if not mask[k]:
            continue
        v = values[k]
        if v > best:
            best = v
            arg = k
            count = 1
        elif v == best:
            count += 1
    if count <= 1:
        return arg
    pick = int(rng.random() * count)
    for k in range(values.shape[0]):
        if mask[k] and values[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return arg


#: d(p, q) and d(p, 1/2) compiled for the algorithms' loops: the one implementation of each
#: is in :mod:`duelbound.theory.kl`.
kl_scalar = nb.njit(cache=True)(kl_bernoulli_scalar)
kl_half_scalar = nb.njit(cache=True)(kl_half_scalar_py)


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm of the simulator: a compiled loop plus its paper defaults.

    ``runner(env, rng, *params)`` plays duels through
    :func:`duelbound.checks.simulate.environment.duel` until the horizon; ``defaults``
    lists the parameters in the runner's positional order.
    """

    name: str
    runner: Callable[..., Any]
    defaults: dict[str, float | str] = field(default_factory=dict)  # "membership" is text
    source: str = ""
    copeland: bool = True  # targets Copeland winners (False: Condorcet-only baselines)
    #: optional ``prepare(M, env) -> tuple`` of extra runner arguments (before the params)
    prepare: Callable[..., tuple] | None = None

    def arguments(self, params: dict | None) -> tuple:
        """The runner's parameter tuple: defaults overridden by ``params``."""
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise UnknownNameError(
                f"unknown parameter(s) {', '.join(unknown)} for {self.name}; "
                f"known: {', '.join(self.defaults) or 'none'}")
        out = []
        for key, default in self.defaults.items():
            value = params.get(key, default)
            try:
                out.append(type(default)(value))
            except (TypeError, ValueError):
                raise DuelboundError(
                    f"parameter {key} of {self.name} must be a number, got {value!r}") from None
        return tuple(out)


@nb.njit(cache=True)
def ucb_above_half(W: np.ndarray, i: int, j: int, alt: float) -> bool:
    """u_ij > 1/2 for the bound of :func:`confidence_bounds`, without the square root.

    With n = N_ij and alt = α ln t: u_ij > 1/2 ⇔ µ̂ ≥ 1/2 (and n ln t > 0) or
    (n/2 − W_ij)² < alt · n; x/0 := 1 gives True for n = 0.
    """
    n = W[i, j] + W[j, i]
    if n == 0:
        return True
    diff = 0.5 * n - W[i, j]
    if diff < 0.0:
        return True
    return diff * diff < alt * n


@nb.njit(cache=True)
def lcb_at_most_half(W: np.ndarray, i: int, j: int, alt: float) -> bool:
    """l_ij ≤ 1/2 (same conventions as :func:`ucb_above_half`; l = 0 for n = 0)."""
    n = W[i, j] + W[j, i]
    if n == 0:
        return True
    diff = W[i, j] - 0.5 * n
    if diff <= 0.0:
        return True
    return diff * diff <= alt * n


@nb.njit(cache=True)
def ucb_at_least_half(W: np.ndarray, i: int, j: int, alt: float) -> bool:
    """u_ij ≥ 1/2 for the bound of :func:`confidence_bounds`, without the square root.

    u_ij < 1/2 ⇔ n > 0 and µ̂ + sqrt(alt/n) < 1/2 ⇔ d = n/2 − W_ij > 0 and
    alt · n < d² (alt = α ln t); x/0 := 1 gives True for n = 0.
    """
    n = W[i, j] + W[j, i]
    if n == 0:
        return True
    diff = 0.5 * n - W[i, j]
    if diff <= 0.0:
        return True
    return not (alt * n < diff * diff)
