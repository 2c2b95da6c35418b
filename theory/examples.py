"""Small named preference matrices bundled with the package.

==================  =====================================================  ===
name                what it shows                                           K
==================  =====================================================  ===
``cyclic``          Condorcet winner 0; arms 1, 2, 3 form a cycle           4
                    ([K16] Table 2, SPEC §2 worked example)
``arithmetic``      transitive: µ_ij = 1/2 + (j − i)/10 for i < j            5
``multi_winner``    no Condorcet winner, three Copeland winners (L1 = 1)    5
``unique_copeland`` a unique Copeland winner that is not a Condorcet        5
                    winner (L1 = 1, L2 = 2)
==================  =====================================================  ===

The published matrices of the literature are not bundled; read them from files.

Examples
--------
>>> from duelbound.theory import examples
>>> examples.names()
['arithmetic', 'cyclic', 'multi_winner', 'unique_copeland']
>>> examples.load("cyclic").K
4
"""

from __future__ import annotations

from .errors import UnknownNameError
from .matrix import PreferenceMatrix

__all__ = ["names", "load", "describe", "EXAMPLES"]


def _from_upper(K: int, upper: dict[tuple[int, int], float]) -> list[list[float]]:
    """Full matrix from the entries µ_ij, i < j (µ_ji = 1 − µ_ij)."""
    rows = [[0.5] * K for _ in range(K)]
    for (i, j), v in upper.items():
        rows[i][j] = v
        rows[j][i] = round(1.0 - v, 12)
    return rows


EXAMPLES: dict[str, tuple[str, list[list[float]]]] = {
    "cyclic": (
        "[K16] Table 2: Condorcet winner 0, cycle 1 > 2 > 3 > 1",
        [[0.5, 0.6, 0.6, 0.6],
         [0.4, 0.5, 0.9, 0.1],
         [0.4, 0.1, 0.5, 0.9],
         [0.4, 0.9, 0.1, 0.5]],
    ),
    "arithmetic": (
        "transitive: mu_ij = 1/2 + (j - i)/10 for i < j",
        _from_upper(5, {(i, j): round(0.5 + (j - i) / 10, 12)
                        for i in range(5) for j in range(i + 1, 5)}),
    ),
    "multi_winner": (
        "no Condorcet winner; 0 > 1 > 2 > 0 all beat 3 and 4; three Copeland winners",
        _from_upper(5, {(0, 1): 0.6, (1, 2): 0.6, (0, 2): 0.4,
                        (0, 3): 0.7, (0, 4): 0.8, (1, 3): 0.75, (1, 4): 0.7,
                        (2, 3): 0.8, (2, 4): 0.75, (3, 4): 0.6}),
    ),
    "unique_copeland": (
        "unique Copeland winner 0 (loses only to 4), not a Condorcet winner",
        _from_upper(5, {(0, 1): 0.6, (0, 2): 0.65, (0, 3): 0.7, (0, 4): 0.4,
                        (1, 2): 0.7, (2, 3): 0.7, (1, 3): 0.3,
                        (1, 4): 0.8, (2, 4): 0.75, (3, 4): 0.7}),
    ),
}


def names() -> list[str]:
    """Names of the bundled examples, sorted."""
    return sorted(EXAMPLES)


def describe(name: str) -> str:
    """One-line description of a bundled example."""
    return _entry(name)[0]


def _entry(name: str) -> tuple[str, list[list[float]]]:
    try:
        return EXAMPLES[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown example {name!r}; bundled examples: {', '.join(names())}") from None


def load(name: str) -> PreferenceMatrix:
    """The bundled example ``name`` as a :class:`PreferenceMatrix`."""
    return PreferenceMatrix(_entry(name)[1], name=name, source=f"example:{name}")
