"""The suite of matrices a verification judges on.

The default suite (:data:`DEFAULT_MATRICES`), bundled matrices by name, matrices given
as objects or arrays, and matrices drawn from the secret master environment seed
(:func:`generated_matrices`), which nobody knows before the verification.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...theory import datasets
from ...theory.errors import DuelboundError
from ...theory.generators import random_matrix
from ...theory.matrix import PreferenceMatrix
from ...theory.tournament import condorcet_winner, copeland_winners

__all__ = ["DEFAULT_MATRICES", "borda_winner", "generated_matrices", "structures", "suite"]

#: Default suite: Condorcet winner; no Condorcet winner with 3 Copeland winners
#: (L1 = 1); a unique Copeland winner that is no Condorcet winner (L1 = 1).
DEFAULT_MATRICES = ("cyclic", "multi_winner", "unique_copeland")


def suite(matrices: Sequence[Any] | None, master: int, generated: int | None = None
          ) -> list[PreferenceMatrix]:
    """The matrices to judge on: ``matrices`` (default :data:`DEFAULT_MATRICES`) and
    ``generated`` matrices drawn from ``master`` (default 1 with the default suite, 0
    when ``matrices`` is given)."""
    if generated is None:
        generated = 1 if matrices is None else 0
    if generated < 0:
        raise DuelboundError(f"generated must be >= 0, got {generated}")
    return _as_matrices(matrices) + generated_matrices(master, generated)


def _as_matrices(matrices: Sequence[Any] | None) -> list[PreferenceMatrix]:
    out = []
    for m in (DEFAULT_MATRICES if matrices is None else matrices):
        if isinstance(m, PreferenceMatrix):
            out.append(m)
        elif isinstance(m, str):
            out.append(datasets.load(m))
        else:
            out.append(PreferenceMatrix(m))
    if not out:
        raise DuelboundError("no matrix to verify on")
    return out


def generated_matrices(master: int, count: int) -> list[PreferenceMatrix]:
    """Matrices drawn from the secret master environment seed, added to the suite.

    Each is drawn so that the structures the default suite lacks are present in every
    draw (:func:`structures`): no Condorcet winner (L1 = 1), one to three Copeland
    winners, a **Borda winner that is no Copeland winner** (:func:`_borda_apart`), and a
    Copeland winner at the **last index** (before the per-run secret relabeling; with
    it, at each index with probability 1/K in each run).  K in 5..7, gaps on
    [0.1, 0.4] (two decimals) but for the margins :func:`_borda_apart` sets (0.2 and
    0.4: wide enough that correct algorithms are logarithmic at the default T).  Nobody knows
    them before the verification (the seed is drawn then); anyone can rebuild them from
    the report's environment seed.
    """
    out = []
    for g in range(count):
        for attempt in range(1000):
            rng = np.random.default_rng(np.random.SeedSequence([int(master), 0x6E4E, g,
                                                                attempt]))
            K = int(rng.integers(5, 8))
            M = random_matrix(K, rng, gap_range=(0.1, 0.4), condorcet=False,
                              n_winners=int(rng.integers(1, 4)), l1=1, decimals=2)
            P = _borda_apart(np.asarray(M.values, dtype=float))
            if P is not None:
                out.append(PreferenceMatrix(_winner_last(P), name=f"generated-{g + 1}"))
                break
        else:  # pragma: no cover - the construction succeeds within a few attempts
            raise DuelboundError("could not draw a matrix with every structure")
    return out


#: A Copeland winner's margin over a non-winner (and the Borda winner's losses: 1 − WIN).
WIN = 0.7


def _borda_apart(P: np.ndarray) -> np.ndarray | None:
    """``P`` with the same tournament (so the same Copeland winners) and margins set so
    that the best non-winner b — the one with the most wins — is the Borda winner: b wins
    at 0.9 and loses at 1 − :data:`WIN`; each Copeland winner beats the other non-winners
    at :data:`WIN` and loses to them at 0.1.  None when b still is not the unique Borda winner."""
    K = P.shape[0]
    beats = P > 0.5
    score = beats.sum(axis=1)
    winners = set(np.flatnonzero(score == score.max()).tolist())
    others = [i for i in range(K) if i not in winners]
    b = max(others, key=lambda i: score[i])
    Q = P.copy()

    def margin(i: int, j: int, v: float) -> None:   # P_ij = v, P_ji = 1 - v
        Q[i, j], Q[j, i] = v, 1.0 - v

    for w in winners:
        for j in others:
            margin(w, j, WIN if beats[w, j] else 0.1)
    for j in range(K):   # b's margins last: they decide the pairs (w, b)
        if j != b:
            margin(b, j, 0.9 if beats[b, j] else 1.0 - WIN)
    borda = Q.sum(axis=1)
    return Q if int(np.argmax(borda)) == b and borda[b] > max(borda[w] for w in winners) \
        else None


def _winner_last(P: np.ndarray) -> np.ndarray:
    """``P`` with its first Copeland winner moved to the last index (a swap)."""
    score = (P > 0.5).sum(axis=1)
    w, last = int(np.argmax(score)), P.shape[0] - 1
    order = np.arange(P.shape[0])
    order[[w, last]] = order[[last, w]]
    return P[np.ix_(order, order)]


def borda_winner(M: PreferenceMatrix) -> int:
    """The arm with the largest row sum Σ_j P_ij (the first on a tie)."""
    return int(np.argmax(np.asarray(M.values, dtype=float).sum(axis=1)))


def structures(mats: Sequence[PreferenceMatrix]) -> dict[str, list[str]]:
    """Which matrices of ``mats`` carry each structure the suite must hold: ``condorcet``,
    ``no-condorcet``, ``several-winners``, ``borda-not-copeland``, ``winner-last``."""
    out: dict[str, list[str]] = {k: [] for k in ("condorcet", "no-condorcet",
                                                 "several-winners", "borda-not-copeland",
                                                 "winner-last")}
    for M in mats:
        win = copeland_winners(M)
        tags = ["condorcet" if condorcet_winner(M) is not None else "no-condorcet"]
        tags += ["several-winners"] * (len(win) > 1)
        tags += ["borda-not-copeland"] * (borda_winner(M) not in win)
        tags += ["winner-last"] * (M.K - 1 in win)
        for t in tags:
            out[t].append(M.name or "?")
    return out
