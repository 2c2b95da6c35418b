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
>>> ps.undefined.tied, float(ps.p_winner[2]) < 0.05, ps.winner_sets[0][0]
([(0, 1)], True, (0,))
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import DuelboundError
from .win_counts import MAX_LISTED_PAIRS, UndefinedPairs, as_win_counts, undefined_pairs

__all__ = ["posterior_structure", "PosteriorStructure", "UndefinedPairs", "undefined_pairs",
           "winner_set_shares", "MAX_LISTED_PAIRS", "MAX_SIGN_DRAWS", "posterior_blocks",
           "sample_posterior"]

_SHOWN = 10  # arms listed in the text rendering without ``full``


#: Most sign draws (pairs × draws) :func:`posterior_structure` takes: ~15 s.
MAX_SIGN_DRAWS = 200_000_000
#: Posterior draws held in memory at once by :func:`posterior_blocks` (pairs × rows floats).
_BLOCK_FLOATS = 1 << 22


def posterior_blocks(counts: Any, draws: int, rng: np.random.Generator,
                     block: int | None = None) -> Iterator[np.ndarray]:
    """Draws of µ under independent uniform priors: µ_ab ~ Beta(W_ab + 1, W_ba + 1).

    The one sampler of the posterior of docs/uncertainty.md (Bayes–Laplace: a uniform prior
    on each µ_ab and binomial duels give this Beta posterior; halves from draws enter as
    they are).  Yields blocks of rows, each row one draw of µ_ab for a < b in
    ``np.triu_indices(K, 1)`` order; the rows of all blocks together are the same numbers
    whatever ``block`` is (one stream of ``rng``), so a caller may hold a few rows at a
    time.  A value exactly 1/2 (probability ~2⁻⁵³) is moved up by one ulp: every draw has a
    tournament.

    Parameters
    ----------
    counts : array_like or WinCounts
        Win counts, validated by :func:`~.counts.as_win_counts`.
    draws : int
        Number of rows in all.
    rng : numpy.random.Generator
    block : int, optional
        Rows per block (default: as many as fit in ~32 MB, at least 1).
    """
    W = as_win_counts(counts).wins
    iu = np.triu_indices(W.shape[0], 1)
    a, b = W[iu] + 1.0, W[iu[1], iu[0]] + 1.0
    step = block or max(1, _BLOCK_FLOATS // max(a.size, 1))
    for start in range(0, int(draws), step):
        P = rng.beta(a, b, size=(min(step, int(draws) - start), a.size))
        P[P == 0.5] = np.nextafter(0.5, 1.0)
        yield P


def sample_posterior(counts: Any, draws: int, rng: np.random.Generator) -> np.ndarray:
    """All ``draws`` rows of :func:`posterior_blocks` as one draws × pairs array."""
    return np.concatenate(list(posterior_blocks(counts, draws, rng, block=int(draws))))


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
    counts : array_like or WinCounts
        K × K win counts (halves allowed: a draw counted ½ each), validated by
        :func:`~.counts.as_win_counts`.
    draws : int
        Posterior draws (≥ 10).
    seed : int, optional

    Returns
    -------
    PosteriorStructure

    Raises
    ------
    InvalidMatrixError
        Counts that are not win counts (negative, fractional other than paired halves,
        non-finite, not K × K).
    DuelboundError
        Fewer than 10 draws, or more than :data:`MAX_SIGN_DRAWS` sign draws.
    """
    if int(draws) < 10:
        raise DuelboundError(f"draws must be >= 10, got {draws}")
    C = as_win_counts(counts)
    K = C.K
    if K * (K - 1) // 2 * int(draws) > MAX_SIGN_DRAWS:
        raise DuelboundError(f"{K * (K - 1) // 2} pairs x {draws} draws is more than "
                             f"{MAX_SIGN_DRAWS} sign draws; use fewer draws (or arms)")
    iu = np.triu_indices(K, 1)
    L = np.empty((int(draws), K), dtype=np.int64)
    done = 0
    for P in posterior_blocks(C, draws, np.random.default_rng(seed)):
        for row in P > 0.5:  # µ_ab > 1/2: the lower index a wins, b takes the loss
            L[done] = np.bincount(np.where(row, iu[1], iu[0]), minlength=K)
            done += 1
    best = L.min(axis=1, keepdims=True)
    is_winner = L == best
    winner_sets = winner_set_shares(is_winner)
    return PosteriorStructure(
        K=K, arms=C.arms, name=C.name,
        draws=int(draws), seed=seed, comparisons=float(C.n_comparisons),
        undefined=undefined_pairs(C.wins), p_winner=is_winner.mean(axis=0),
        losses=np.quantile(L, [0.05, 0.5, 0.95], axis=0, method="inverted_cdf").T,
        winner_sets=winner_sets, p_condorcet=float(np.mean(best[:, 0] == 0)))
