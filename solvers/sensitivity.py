"""Which pairs drive the spread of C* among the posterior draws (what to compare next).

:func:`first_order_shares` is the first-order (main-effect) share of the variance of the
rank of C* explained by each µ_ij alone — the bias-corrected correlation ratio η² over
:data:`SENSITIVITY_BINS` equal-count bins (Saltelli et al., *Global Sensitivity Analysis*,
2008, §1.2.6 on first-order indices) — with Monte Carlo errors from a bootstrap over the
draws (:func:`share_errors`); :func:`local_shares` is the delta method at the plug-in
(envelope theorem at the optimal allocation, docs/uncertainty.md).

Examples
--------
>>> import numpy as np
>>> from duelbound.solvers.sensitivity import first_order_shares
>>> rng = np.random.default_rng(0)
>>> P = rng.random((2000, 2))
>>> shares = first_order_shares(P, P[:, 0], 10)   # y depends on the first column only
>>> bool(shares[0] > 0.9 and shares[1] < 0.01)
True
"""

from __future__ import annotations

import numpy as np

from .oracle import kl_half_core, regret_core

__all__ = ["first_order_shares", "share_errors", "local_shares", "SENSITIVITY_BINS"]

#: Quantile bins of µ_p used to estimate the first-order variance share of a pair.
SENSITIVITY_BINS = 10
_SHOWN = 5  # pairs given a Monte Carlo error (those the report lists)


def first_order_shares(P: np.ndarray, y: np.ndarray, bins: int) -> np.ndarray:
    """Bias-corrected correlation ratio η² of y on each column of P (quantile bins)."""
    n, m = P.shape
    out = np.zeros(m)
    var = y.var()
    if n < 2 * bins or not var > 0:
        return out
    ranks = np.argsort(np.argsort(P, axis=0, kind="stable"), axis=0)
    groups = ranks * bins // n
    cnt = np.bincount(groups[:, 0], minlength=bins)  # equal-count bins, same for every pair
    for p in range(m):
        means = np.bincount(groups[:, p], weights=y, minlength=bins) / np.maximum(cnt, 1)
        out[p] = float(np.sum(cnt * (means - y.mean()) ** 2) / n / var)
    null = (bins - 1) / (n - 1)  # E[η²] when y does not depend on the column
    return np.maximum(0.0, (out - null) / (1.0 - null))


def share_errors(P: np.ndarray, y: np.ndarray, share: np.ndarray, seed: int | None,
                  top: int = _SHOWN, reps: int = 50) -> dict[int, float]:
    """Bootstrap (over the draws) standard errors of the ``top`` largest shares."""
    out: dict[int, float] = {}
    if P.shape[0] < 2 * SENSITIVITY_BINS:
        return out
    cols = np.argsort(-share, kind="stable")[:top]
    rng = np.random.default_rng(None if seed is None else seed + 1)
    boot = np.empty((reps, cols.size))
    for b in range(reps):
        rows = rng.integers(0, P.shape[0], P.shape[0])
        boot[b] = first_order_shares(P[rows][:, cols], y[rows], SENSITIVITY_BINS)
    return {int(k): float(sd) for k, sd in zip(cols, boot.std(axis=0, ddof=1))}


def local_shares(mu: np.ndarray, allocation: np.ndarray, mu_hat: np.ndarray, n: np.ndarray,
                 sd: np.ndarray) -> np.ndarray:
    """Delta-method shares at the plug-in, per pair (``np.triu_indices`` order).

    (∂C*/∂µ_ij · sd_ij)² over their sum, with ∂C*/∂µ_ij = −r_ij q*_ij log(µ_ij/(1 − µ_ij))
    / d_ij (envelope theorem at the optimal allocation q*; ``mu`` the plug-in matrix,
    ``allocation`` its q*, ``n`` the duels and ``sd`` the spread of each pair)."""
    iu = np.triu_indices(mu.shape[0], 1)
    # log(µ/(1 − µ)) is infinite at µ̂ ∈ {0, 1} (a pair won n:0): evaluate it 1/(n + 2)
    # inside, at the posterior mean of a pair won n:0
    m = np.clip(mu_hat, 1.0 / (n + 2.0), 1.0 - 1.0 / (n + 2.0))
    dd = kl_half_core(mu)[iu]
    rr = regret_core(np.ascontiguousarray(mu))[iu]
    grad = rr * allocation[iu] * np.abs(np.log(m / (1.0 - m))) / dd
    v = (grad * sd) ** 2
    return v / v.sum() if v.sum() > 0 else np.zeros_like(v)
