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

__all__ = ["DEFAULT_MATRICES", "generated_matrices", "suite"]

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

    K in 5..7; with or without a Condorcet winner (each with probability 1/2; without
    one: L1 = 1, one to three Copeland winners); gaps uniform on [0.1, 0.4], rounded to
    two decimals.  Nobody knows them before the verification (the seed is drawn then),
    anyone can rebuild them from the report's environment seed.
    """
    out = []
    for g in range(count):
        rng = np.random.default_rng(np.random.SeedSequence([int(master), 0x6E4E, g]))
        K = int(rng.integers(5, 8))
        condorcet = bool(rng.random() < 0.5)
        winners = None if condorcet else int(rng.integers(1, 4))
        out.append(random_matrix(K, rng, gap_range=(0.1, 0.4), condorcet=condorcet,
                                 n_winners=winners, l1=None if condorcet else 1,
                                 decimals=2, name=f"generated-{g + 1}"))
    return out
