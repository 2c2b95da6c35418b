"""The tournament of a matrix estimated from win counts, as a posterior distribution.

When some pair is won equally often or never compared, the plug-in estimate µ̂_ij =
W_ij / (W_ij + W_ji) has no tournament: Copeland winners, the loss vector L and Δ_min
([K16] §2; docs/math.md §2) are undefined.  Under independent uniform priors the
posterior µ_ij ~ Beta(W_ij + 1, W_ji + 1) (docs/uncertainty.md) is defined whatever the
counts, and so is the distribution of the tournament: :func:`posterior_structure` draws
it and reports, per arm, the probability of being a Copeland winner and the quantiles
of its number of losses, the most frequent winner sets and the probability that a
Condorcet winner exists.  Signs only: no gap enters, so nothing here depends on how
close a pair is to ½ beyond its probability of being flipped.

Examples
--------
>>> import numpy as np
>>> from duelbound.theory.posterior import posterior_structure
>>> W = np.array([[0, 6, 9], [6, 0, 8], [1, 2, 0]])   # arms 0 and 1 tied 6 : 6
>>> ps = posterior_structure(W, draws=2000, seed=0)
>>> ps.undefined.tied, round(float(ps.p_winner[0] + ps.p_winner[1]), 2)
([(0, 1)], 1.0)
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import DuelboundError

__all__ = ["posterior_structure", "PosteriorStructure", "UndefinedPairs", "undefined_pairs",
           "winner_set_shares", "MAX_LISTED_PAIRS", "MAX_SIGN_DRAWS"]

_SHOWN = 10  # arms listed in the text rendering without ``full``


#: Pairs listed by :func:`undefined_pairs` (they are counted all the same): a log naming
#: 10 000 arms in a chain has 5·10⁷ never-compared pairs, gigabytes as a list.
MAX_LISTED_PAIRS = 10_000
#: Most sign draws (pairs × draws) :func:`posterior_structure` takes: ~15 s.
MAX_SIGN_DRAWS = 200_000_000


@dataclass(frozen=True)
class UndefinedPairs:
    """Pairs of win counts that leave µ̂ without a tournament.

    ``n_tied`` / ``n_never``: how many pairs i < j are won equally often / never compared;
    ``tied`` / ``never``: the first :data:`MAX_LISTED_PAIRS` of each, row by row."""

    n_tied: int
    n_never: int
    tied: list[tuple[int, int]]
    never: list[tuple[int, int]]

    def __bool__(self) -> bool:
        return bool(self.n_tied or self.n_never)


def undefined_pairs(W: np.ndarray, limit: int = MAX_LISTED_PAIRS) -> UndefinedPairs:
    """The tied and never-compared pairs of win counts W (K × K): counted, and the first
    ``limit`` of each listed (memory O(K²) booleans, never a list of every pair)."""
    W = np.asarray(W)
    seen = (W > 0) | (W.T > 0)
    tied = seen & (W == W.T)
    never = ~seen
    np.fill_diagonal(tied, False)
    np.fill_diagonal(never, False)
    return UndefinedPairs(int(np.count_nonzero(tied)) // 2, int(np.count_nonzero(never)) // 2,
                          _first_upper(tied, limit), _first_upper(never, limit))


def _first_upper(mask: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """The first ``limit`` True entries (i, j), i < j, of a symmetric mask, row by row."""
    out: list[tuple[int, int]] = []
    for i in range(mask.shape[0]):
        out += [(i, int(j)) for j in i + 1 + np.flatnonzero(mask[i, i + 1:])[:limit - len(out)]]
        if len(out) >= limit:
            break
    return out


def winner_set_shares(is_winner: np.ndarray, top: int = 5
                      ) -> list[tuple[tuple[int, ...], float]]:
    """The ``top`` most frequent Copeland winner sets among draws and their shares.

    ``is_winner``: draws × K booleans (a row with no winner, e.g. a bootstrap draw with a
    tie, counts in the shares' denominator but is no set).  Rows are compared as packed
    bits, so any K works (an integer bitmask overflowed at K ≥ 64)."""
    n = is_winner.shape[0]
    some = is_winner.any(axis=1)
    if not some.any():
        return []
    rows = is_winner[some]
    _, first, cnt = np.unique(np.packbits(rows, axis=1), axis=0, return_index=True,
                              return_counts=True)
    order = np.argsort(-cnt, kind="stable")[:top]
    return [(tuple(int(i) for i in np.flatnonzero(rows[first[o]])), float(cnt[o] / n))
            for o in order]


@dataclass
class PosteriorStructure:
    """Distribution of the tournament under µ_ij ~ Beta(W_ij + 1, W_ji + 1).

    Attributes
    ----------
    K, arms, name, draws, seed
        Size, arm names (or None), label, number of draws and their seed.
    comparisons : float
        Σ_{i<j} (W_ij + W_ji).
    undefined : UndefinedPairs
        Pairs won equally often / never compared (they make the plug-in undefined).
    p_winner : numpy.ndarray
        P(arm i is a Copeland winner), shape (K,).
    losses : numpy.ndarray
        Quantiles (5 %, 50 %, 95 %) of L_i over the draws, shape (K, 3).
    winner_sets : list of (tuple of int, float)
        The most frequent Copeland winner sets and their shares.
    p_condorcet : float
        Share of the draws with a Condorcet winner (L_i = 0 for some i).
    """

    K: int
    arms: tuple[str, ...] | None
    name: str | None
    draws: int
    seed: int | None
    comparisons: float
    undefined: UndefinedPairs
    p_winner: np.ndarray
    losses: np.ndarray
    winner_sets: list[tuple[tuple[int, ...], float]] = field(default_factory=list)
    p_condorcet: float = 0.0

    def label(self, i: int) -> str:
        return self.arms[i] if self.arms else str(i)

    def ranking(self) -> list[int]:
        """Arms by P(Copeland winner), then by median losses, then index."""
        return sorted(range(self.K), key=lambda i: (-self.p_winner[i], self.losses[i, 1], i))

    def to_dict(self) -> dict[str, Any]:
        return {"K": self.K, "arms": list(self.arms) if self.arms else None, "name": self.name,
                "draws": self.draws, "seed": self.seed, "comparisons": self.comparisons,
                "n_tied": self.undefined.n_tied, "n_never_compared": self.undefined.n_never,
                "tied": [list(p) for p in self.undefined.tied],
                "never_compared": [list(p) for p in self.undefined.never],
                "pairs_listed_at_most": MAX_LISTED_PAIRS,
                "p_winner": [float(p) for p in self.p_winner],
                "losses_quantiles": {"levels": [0.05, 0.5, 0.95],
                                     "values": self.losses.tolist()},
                "winner_sets": [{"winners": list(s), "share": p} for s, p in self.winner_sets],
                "p_condorcet": self.p_condorcet,
                "model": "mu_ij ~ Beta(W_ij + 1, W_ji + 1), independent pairs"}

    def render(self, full: bool = False) -> str:
        """Plain text: the undefined pairs, then the arms by P(Copeland winner)."""
        n_pairs = self.K * (self.K - 1) // 2
        out = [f"counts      {self.name or '-'}  (K = {self.K}, {self.comparisons:g} comparisons, "
               f"{n_pairs - self.undefined.n_never} of {n_pairs} pairs compared)",
               f"plug-in     undefined: {self.undefined.n_tied} pair(s) won equally often, "
               f"{self.undefined.n_never} never compared",
               "            (the tournament of mu_hat does not exist)",
               f"posterior   Beta(W_ij+1, W_ji+1) per pair; {self.draws} draws, seed {self.seed}"
               "; signs only (no gap is estimated)",
               "",
               f"P(a Condorcet winner exists) = {self.p_condorcet:.3f}",
               *textwrap.wrap("winner sets among the draws: " + "; ".join(
                   "{" + ", ".join(self.label(i) for i in s) + f"}}: {p:.3f}"
                   for s, p in self.winner_sets[:3]), 100, subsequent_indent="  ",
                   break_on_hyphens=False, break_long_words=False),
               ""]
        order = self.ranking()
        shown = order if full else order[:_SHOWN]
        w = max([len(self.label(i)) for i in shown] + [3])
        out.append(f"  {'arm':<{w}}  P(Copeland winner)  losses: median [5%, 95%]")
        for i in shown:
            lo, med, hi = self.losses[i]
            out.append(f"  {self.label(i):<{w}}  {self.p_winner[i]:>18.3f}  "
                       f"{med:g} [{lo:g}, {hi:g}]")
        if len(shown) < self.K:
            out.append(f"  ... {self.K - len(shown)} more arms (see --json / --full)")
        return "\n".join(out)


def posterior_structure(counts: Any, draws: int = 1000, seed: int | None = 0
                        ) -> PosteriorStructure:
    """Sample the tournament of µ ~ Beta(W + 1, Wᵀ + 1) (independent pairs).

    Parameters
    ----------
    counts : array_like or object with ``.wins``
        K × K win counts (halves allowed: a draw counted ½ each), or a ``WinCounts``.
    draws : int
        Posterior draws (≥ 10).
    seed : int, optional

    Returns
    -------
    PosteriorStructure
    """
    if int(draws) < 10:
        raise DuelboundError(f"draws must be >= 10, got {draws}")
    W = np.asarray(getattr(counts, "wins", counts), dtype=np.float64)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
        raise DuelboundError(f"win counts must be a K x K array with K >= 2, got shape "
                             f"{W.shape}")
    K = W.shape[0]
    if K * (K - 1) // 2 * int(draws) > MAX_SIGN_DRAWS:
        raise DuelboundError(f"{K * (K - 1) // 2} pairs x {draws} draws is more than "
                             f"{MAX_SIGN_DRAWS} sign draws; use fewer draws (or arms)")
    iu = np.triu_indices(K, 1)
    wa, wb = W[iu], W[iu[1], iu[0]]
    rng = np.random.default_rng(seed)
    L = np.empty((int(draws), K), dtype=np.int64)
    for s in range(int(draws)):
        low_wins = rng.beta(wa + 1.0, wb + 1.0) > 0.5  # µ_ab > 1/2 for a < b
        L[s] = np.bincount(np.where(low_wins, iu[1], iu[0]), minlength=K)
    best = L.min(axis=1, keepdims=True)
    is_winner = L == best
    winner_sets = winner_set_shares(is_winner)
    return PosteriorStructure(
        K=K, arms=getattr(counts, "arms", None), name=getattr(counts, "name", None),
        draws=int(draws), seed=seed, comparisons=float((wa + wb).sum()),
        undefined=undefined_pairs(W), p_winner=is_winner.mean(axis=0),
        losses=np.quantile(L, [0.05, 0.5, 0.95], axis=0, method="inverted_cdf").T,
        winner_sets=winner_sets, p_condorcet=float(np.mean(best[:, 0] == 0)))
