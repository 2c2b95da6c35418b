"""Tournament structure of a preference matrix (SPEC §1).

Arm i *beats* arm j when µ_ij > 1/2; under Assumption A the beats-relation is a
tournament.  Every quantity the bounds need — L_i, superiors S_i, inferiors I_i,
Copeland scores and winners, L1, L2, the top cycle — is a small pure function
here.  Graph algorithms come from networkx (``networkx.algorithms.tournament``,
``condensation``).

Examples
--------
>>> from duelbound.theory import examples, structure
>>> M = examples.load("cyclic")
>>> structure.losses(M).tolist(), structure.copeland_winners(M)
([0, 2, 2, 2], [0])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from math import comb
from typing import Any

import networkx as nx
import numpy as np
from networkx.algorithms import tournament

from .kl import kl_half
from .matrix import PreferenceMatrix

__all__ = [
    "beats_matrix", "beats_graph", "losses", "superiors", "inferiors",
    "copeland_scores", "copeland_winners", "L1", "L2", "condorcet_winner",
    "top_cycle", "three_cycles", "is_transitive", "hamiltonian_path", "gaps",
    "delta_min", "divergences", "Structure", "structure",
]


def beats_matrix(M: PreferenceMatrix) -> np.ndarray:
    """Boolean K×K matrix B with B[i, j] = (µ_ij > 1/2)."""
    return np.asarray(M.values) > 0.5


def beats_graph(M: PreferenceMatrix) -> nx.DiGraph:
    """The beats-digraph: edge i → j iff i beats j, with ``mu`` edge attributes.

    Under Assumption A this is a tournament (``networkx.tournament.is_tournament``).
    """
    G = nx.DiGraph()
    G.add_nodes_from(range(M.K))
    V = M.values
    G.add_edges_from((int(i), int(j), {"mu": float(V[i, j])})
                     for i, j in np.argwhere(beats_matrix(M)))
    return G


def losses(M: PreferenceMatrix) -> np.ndarray:
    """L_i = |S_i|, the number of arms that beat arm i (SPEC §1)."""
    return (np.asarray(M.values) < 0.5).sum(axis=1).astype(np.int64)


def superiors(M: PreferenceMatrix, i: int) -> list[int]:
    """S_i = {j : µ_ij < 1/2}, the arms that beat arm i."""
    return [int(j) for j in np.flatnonzero(np.asarray(M.values)[i] < 0.5)]


def inferiors(M: PreferenceMatrix, i: int) -> list[int]:
    """I_i = {j : µ_ij > 1/2}, the arms that arm i beats."""
    return [int(j) for j in np.flatnonzero(np.asarray(M.values)[i] > 0.5)]


def copeland_scores(M: PreferenceMatrix, normalized: bool = False) -> np.ndarray:
    """Cpld(i) = K − 1 − L_i, or cpld(i) = Cpld(i)/(K − 1) when ``normalized``.

    Equals networkx's ``tournament.score_sequence`` as a multiset.
    """
    raw = M.K - 1 - losses(M)
    return raw / (M.K - 1) if normalized else raw


def L1(M: PreferenceMatrix) -> int:
    """L1 = min_i L_i: losses of a Copeland winner ([Z15] writes L_C)."""
    return int(losses(M).min())


def L2(M: PreferenceMatrix) -> int:
    """L2 = second smallest element of the multiset {L_i} (= L1 if C ≥ 2)."""
    return int(np.sort(losses(M))[1])


def copeland_winners(M: PreferenceMatrix) -> list[int]:
    """Ccop = {i : L_i = L1}, in increasing order."""
    L = losses(M)
    return [int(i) for i in np.flatnonzero(L == L.min())]


def condorcet_winner(M: PreferenceMatrix) -> int | None:
    """The arm that beats every other arm (L_i = 0), or None."""
    L = losses(M)
    hits = np.flatnonzero(L == 0)
    return int(hits[0]) if hits.size else None


def top_cycle(M: PreferenceMatrix) -> list[int]:
    """The top cycle (Smith set): the source strongly connected component.

    In a tournament the condensation is a transitive tournament, so it has a
    unique source; its members are the top cycle.  Contains every Copeland winner.
    """
    G = beats_graph(M)
    C = nx.condensation(G)
    source = next(n for n in C.nodes if C.in_degree(n) == 0)
    return sorted(int(v) for v in C.nodes[source]["members"])


def three_cycles(M: PreferenceMatrix) -> int:
    """Number of cyclic triples: C(K, 3) − Σ_i C(Cpld(i), 2) (SPEC §1).

    Every non-cyclic triple has exactly one arm beating the other two, and arm i
    tops exactly C(Cpld(i), 2) triples.
    """
    return comb(M.K, 3) - sum(comb(int(s), 2) for s in copeland_scores(M))


def is_transitive(M: PreferenceMatrix) -> bool:
    """True iff the beats-relation is a linear order (no 3-cycles)."""
    return three_cycles(M) == 0


def hamiltonian_path(M: PreferenceMatrix) -> list[int]:
    """A Hamiltonian path of the tournament (each arm beats the next), via networkx."""
    return [int(v) for v in tournament.hamiltonian_path(beats_graph(M))]


def gaps(M: PreferenceMatrix) -> np.ndarray:
    """Δ_ij = |µ_ij − 1/2| (zero on the diagonal)."""
    return np.abs(np.asarray(M.values) - 0.5)


def delta_min(M: PreferenceMatrix) -> float:
    """Δ_min = min_{i≠j} Δ_ij."""
    G = gaps(M)
    return float(G[~np.eye(M.K, dtype=bool)].min())


def divergences(M: PreferenceMatrix) -> np.ndarray:
    """d_ij = d(µ_ij, 1/2) = d(µ_ji, 1/2) (zero on the diagonal), SPEC §1."""
    return kl_half(np.asarray(M.values))


@dataclass(frozen=True)
class Structure:
    """Summary of a tournament (what ``duelbound structure`` prints)."""

    name: str | None
    K: int
    losses: list[int]
    copeland_scores: list[int]
    copeland_winners: list[int]
    C: int
    L1: int
    L2: int
    condorcet_winner: int | None
    top_cycle: list[int]
    three_cycles: int
    transitive: bool
    hamiltonian_path: list[int]
    delta_min: float
    tie_epsilon: float | None
    broken_ties: list[list[int]]
    assumption_A: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def structure(M: PreferenceMatrix) -> Structure:
    """All structure facts of SPEC §1 in one record."""
    L = losses(M)
    winners = copeland_winners(M)
    status = ("holds (ties broken by epsilon: results are for the perturbed matrix)"
              if M.perturbed else "holds (no ties)")
    return Structure(
        name=M.name, K=M.K, losses=L.tolist(), copeland_scores=copeland_scores(M).tolist(),
        copeland_winners=winners, C=len(winners), L1=L1(M), L2=L2(M),
        condorcet_winner=condorcet_winner(M), top_cycle=top_cycle(M),
        three_cycles=three_cycles(M), transitive=is_transitive(M),
        hamiltonian_path=hamiltonian_path(M), delta_min=delta_min(M),
        tie_epsilon=M.tie_epsilon, broken_ties=[list(p) for p in M.broken_ties],
        assumption_A=status,
    )
