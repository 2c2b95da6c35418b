"""Tournament structure of a preference matrix (docs/math.md §2).

Arm i *beats* arm j when µ_ij > 1/2; under Assumption A the beats-relation is a
tournament.  Every quantity the bounds need — L_i, superiors S_i, inferiors I_i,
Copeland scores and winners, L1, L2, the top cycle — is a small pure function
here.  The graph facts are computed without recursion or graph objects, so they
scale to the largest K the readers accept (``MAX_K``; K = 5000 in about a second):
the top cycle from the sorted score sequence (Landau), the number of 3-cycles from
the scores, a Hamiltonian path by binary insertion.  :func:`beats_graph` still
gives the networkx ``DiGraph`` for drawing and cross-checks.

Examples
--------
>>> from duelbound.theory import datasets, tournament
>>> M = datasets.load("cyclic")
>>> tournament.losses(M).tolist(), tournament.copeland_winners(M)
([0, 2, 2, 2], [0])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from math import comb
from typing import Any

import networkx as nx
import numpy as np

from .kl import kl_half
from .matrix import PreferenceMatrix
from .text import clip

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
    """L_i = |S_i|, the number of arms that beat arm i (docs/math.md §2)."""
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

    Notes
    -----
    Computed from the score sequence, O(K log K) after the scores: with the arms
    sorted by Copeland score s_(1) ≥ s_(2) ≥ …, the first k arms beat every other
    arm iff Σ_{t≤k} s_(t) = C(k, 2) + k(K − k) (they win all games among themselves
    and all k(K − k) games against the rest; Landau's condition).  The smallest
    such k gives the source component of the condensation: the top k arms dominate
    the rest, and no smaller dominating set exists, because any dominating set is a
    set of top-scored arms.
    """
    return _top_cycle(copeland_scores(M))


def _top_cycle(scores: np.ndarray) -> list[int]:
    K = scores.size
    order = np.argsort(-scores, kind="stable")
    k = np.arange(1, K + 1)
    closed = np.cumsum(scores[order]) == k * (k - 1) // 2 + k * (K - k)
    size = int(np.argmax(closed)) + 1  # k = K always qualifies
    return sorted(int(v) for v in order[:size])


def three_cycles(M: PreferenceMatrix) -> int:
    """Number of cyclic triples: C(K, 3) − Σ_i C(Cpld(i), 2) (docs/math.md §2).

    Every non-cyclic triple has exactly one arm beating the other two, and arm i
    tops exactly C(Cpld(i), 2) triples.
    """
    return _three_cycles(copeland_scores(M))


def _three_cycles(scores: np.ndarray) -> int:
    # exact integers: C(K, 3) overflows int64 only far beyond MAX_K, but stay in Python ints
    s = scores.astype(object)
    return comb(scores.size, 3) - int(np.sum(s * (s - 1) // 2))


def is_transitive(M: PreferenceMatrix) -> bool:
    """True iff the beats-relation is a linear order (no 3-cycles)."""
    return three_cycles(M) == 0


def hamiltonian_path(M: PreferenceMatrix) -> list[int]:
    """A Hamiltonian path of the tournament: each arm beats the next (Rédei's theorem).

    Binary insertion, no recursion: keep a path p_0 → … → p_{n−1} and insert arm v
    before p_0 if v beats p_0, after p_{n−1} if p_{n−1} beats v, else at a position
    t with p_{t−1} → v → p_t, found by bisection (the invariant "p_lo beats v, v
    beats p_hi" holds at both ends and is kept by every halving).
    O(K log K) comparisons; fine up to ``MAX_K``.
    """
    B = beats_matrix(M)
    path: list[int] = []
    for v in range(M.K):
        row = B[v]
        if not path or row[path[0]]:
            path.insert(0, v)
        elif not row[path[-1]]:  # path[-1] beats v
            path.append(v)
        else:
            lo, hi = 0, len(path) - 1  # path[lo] beats v, v beats path[hi]
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if row[path[mid]]:
                    hi = mid
                else:
                    lo = mid
            path.insert(hi, v)
    return path


def gaps(M: PreferenceMatrix) -> np.ndarray:
    """Δ_ij = |µ_ij − 1/2| (zero on the diagonal)."""
    return np.abs(np.asarray(M.values) - 0.5)


def delta_min(M: PreferenceMatrix) -> float:
    """Δ_min = min_{i≠j} Δ_ij."""
    G = gaps(M)
    np.fill_diagonal(G, np.inf)
    return float(G.min())


def divergences(M: PreferenceMatrix) -> np.ndarray:
    """d_ij = d(µ_ij, 1/2) = d(µ_ji, 1/2) (zero on the diagonal), docs/math.md §3."""
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

    def named_dict(self, M: PreferenceMatrix) -> dict[str, Any]:
        """:meth:`to_dict` plus the arm names of ``M``: every index field has a ``*_names``
        twin.

        ``arms`` is the list of names (null for unnamed arms); the ``*_names`` fields always
        exist and hold the labels (the index as a string for unnamed arms).
        """
        d = self.to_dict()
        lab = M.label
        d["arms"] = list(M.arms) if M.arms is not None else None
        d["losses_by_arm"] = {lab(i): v for i, v in enumerate(self.losses)}
        d["copeland_winners_names"] = [lab(i) for i in self.copeland_winners]
        d["condorcet_winner_name"] = (None if self.condorcet_winner is None
                                      else lab(self.condorcet_winner))
        d["top_cycle_names"] = [lab(i) for i in self.top_cycle]
        d["hamiltonian_path_names"] = [lab(i) for i in self.hamiltonian_path]
        d["broken_ties_names"] = [[lab(i), lab(j)] for i, j in self.broken_ties]
        return d

    def render(self, M: PreferenceMatrix | None = None, full: bool = False) -> str:
        """The readable summary; with ``M`` given, arms are shown by name as well as index.

        Lists are clipped to ~100 characters ("… N more"; ``full`` shows everything); above
        K = 12 the losses are sorted, fewest first (what matters: who is near the top).
        """
        named = M is not None and M.arms is not None

        def label(i: int) -> str:
            return M.label(i) if named else str(i)  # type: ignore[union-attr]

        order = sorted(range(self.K), key=lambda i: (self.losses[i], i)) if self.K > 12 \
            else range(self.K)
        losses = clip([f"{label(i)} ({self.losses[i]})" if named or self.K > 12
                       else str(self.losses[i]) for i in order], full=full, width=_WIDTH)
        if self.K <= 12 and not named:
            losses = f"[{losses}]"
        elif self.K > 12:
            losses = "(fewest first) " + losses
        cw = "none" if self.condorcet_winner is None else \
            _arms(M, [self.condorcet_winner]) if named else str(self.condorcet_winner)
        path = clip([label(i) for i in self.hamiltonian_path], " > ", full, width=_WIDTH)
        artefact = bool(self.broken_ties) and self.tie_epsilon is not None \
            and abs(self.delta_min - self.tie_epsilon) <= 1e-12
        lines = [
            f"matrix            {self.name or '-'}  (K = {self.K})",
            f"losses L          {losses}",
            f"Copeland winners  {_arms(M, self.copeland_winners, full)}  (C = {self.C}, "
            f"L1 = {self.L1}, L2 = {self.L2})",
            f"Condorcet winner  {cw}",
            f"top cycle         {_arms(M, self.top_cycle, full)}",
            f"3-cycles          {self.three_cycles}  "
            f"({'transitive' if self.transitive else 'not transitive'})",
            f"Hamiltonian path  {path}",
            f"Delta_min         {self.delta_min:.6g}"
            + ("  (= epsilon of a broken tie: an artefact, not a gap of the data)"
               if artefact else ""),
            f"Assumption A      {self.assumption_A}",
        ]
        if self.broken_ties:
            broken = clip([M.pair_label(i, j) if M is not None else f"({i},{j})"
                           for i, j in self.broken_ties], full=full, width=_WIDTH)
            lines.append(f"broken ties       {broken} (epsilon = {self.tie_epsilon:g})")
        return "\n".join(lines)


#: Characters of a clipped list after the 18-character label: lines stay under ~120.
_WIDTH = 72


def _arms(M: PreferenceMatrix | None, idx: list[int], full: bool = False) -> str:
    """A list of arms: ``[0, 2]``, or ``a, c  [0, 2]`` when the arms are named (clipped; the
    indices only when the names fit)."""
    if M is None or M.arms is None:
        return "[" + clip([str(i) for i in idx], full=full, width=_WIDTH) + "]"
    names = clip([M.label(i) for i in idx], full=full, width=_WIDTH)
    if "more (--json" in names:  # clipped: the indices would repeat the clipping
        return names
    return f"{names}  [{clip([str(i) for i in idx], full=full, width=_WIDTH)}]"


def structure(M: PreferenceMatrix) -> Structure:
    """All structure facts of docs/math.md §2 in one record."""
    L = losses(M)
    scores = M.K - 1 - L
    Ls = np.sort(L)
    winners = [int(i) for i in np.flatnonzero(L == Ls[0])]
    n3 = _three_cycles(scores)
    status = ("holds (ties broken by epsilon: results are for the perturbed matrix)"
              if M.perturbed else "holds (no ties)")
    return Structure(
        name=M.name, K=M.K, losses=L.tolist(), copeland_scores=scores.tolist(),
        copeland_winners=winners, C=len(winners), L1=int(Ls[0]), L2=int(Ls[1]),
        condorcet_winner=winners[0] if Ls[0] == 0 else None, top_cycle=_top_cycle(scores),
        three_cycles=n3, transitive=n3 == 0,
        hamiltonian_path=hamiltonian_path(M), delta_min=delta_min(M),
        tie_epsilon=M.tie_epsilon, broken_ties=[list(p) for p in M.broken_ties],
        assumption_A=status,
    )
