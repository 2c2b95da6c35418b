"""Bundled preference matrices: published data with their citations, and our own examples.

Numbers from publications are facts; each dataset carries the reference it comes
from, its known properties (Condorcet winner, Copeland winners, exact ties) and a
loader.  ``duelbound datasets`` lists them, and every command accepts a name with
``--example NAME``.

==================  ===  ==========================================================
name                K    what it is
==================  ===  ==========================================================
``cyclic``          4    Komiyama et al. (2016), Table 2: Condorcet winner 0, the
                         other three arms form a cycle
``mslr5``           5    MSLR Informational click model, 5 rankers with a Condorcet
                         winner (Zoghi et al. 2015; Wu & Liu 2016, Fig. 1(a))
``arxiv6``          6    six arXiv.org retrieval functions (Yue & Joachims 2011;
                         Komiyama et al. 2016, App. B, Table 3(d)); **exact tie**
                         µ_35 = 1/2 (0-based), load with ``break_ties``
``arithmetic``      5    ours: transitive, µ_ij = 1/2 + (j − i)/10 for i < j
``multi_winner``    5    ours: no Condorcet winner, three Copeland winners
``unique_copeland`` 5    ours: a unique Copeland winner that is not a Condorcet winner
==================  ===  ==========================================================

Examples
--------
>>> from duelbound.theory import datasets
>>> datasets.load("cyclic").K
4
>>> datasets.get("mslr5").condorcet_winner
0
>>> datasets.load("arxiv6", break_ties=1e-3).broken_ties
((3, 5),)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import TieError, UnknownNameError
from .matrix import PreferenceMatrix

__all__ = ["Dataset", "DATASETS", "names", "get", "load", "describe"]


@dataclass(frozen=True)
class Dataset:
    """One bundled preference matrix and what is known about it.

    Attributes
    ----------
    name : str
        The name used by :func:`load` and ``--example``.
    title : str
        One line: what the matrix is.
    citation : str
        Where the numbers come from ("ours" for the package's own examples).
    cite_key : str or None
        BibTeX key of the source (see ``docs/references.bib``), None for ours.
    rows : tuple of tuple of float
        The K×K matrix as published (row i, column j = P(i beats j)), 0-based.
    condorcet_winner : int or None
        Known Condorcet winner (tests check it against the structure code).
    copeland_winners : tuple of int
        Known Copeland winners (after the documented tie-breaking, if any).
    ties : tuple of (int, int)
        Exact ties µ_ij = 1/2, i < j, present in the published numbers.
    arms : tuple of str or None
        Arm names where the source gives them.
    note : str
        Anything a user should know before using the numbers.
    """

    name: str
    title: str
    citation: str
    cite_key: str | None
    rows: tuple[tuple[float, ...], ...]
    condorcet_winner: int | None
    copeland_winners: tuple[int, ...]
    ties: tuple[tuple[int, int], ...] = ()
    arms: tuple[str, ...] | None = None
    note: str = ""
    published: bool = field(default=True)
    short: str = "ours"

    @property
    def source(self) -> str:
        """Short form of the citation for listings."""
        return self.short

    @property
    def K(self) -> int:
        return len(self.rows)

    def load(self, break_ties: float | None = None) -> PreferenceMatrix:
        """The dataset as a validated :class:`PreferenceMatrix`.

        Raises
        ------
        TieError
            The published numbers have an exact tie and ``break_ties`` is not
            given; the message names the pair and the option to use.
        """
        if self.ties and break_ties is None:
            pairs = ", ".join(f"({i},{j})" for i, j in self.ties)
            raise TieError(
                f"dataset {self.name!r} has an exact tie mu = 1/2 at {pairs} as published "
                f"({self.citation}); the bounds assume no ties: pass break_ties=EPS "
                "(CLI: --break-ties EPS, e.g. 1e-3) to let the lower index win by EPS",
                list(self.ties))
        M = PreferenceMatrix([list(r) for r in self.rows], name=self.name,
                             break_ties=break_ties, arms=self.arms,
                             source=f"dataset:{self.name}")
        # the published decimals are the shortest text of the stored floats
        return M.with_written([[repr(float(v)) for v in r] for r in self.rows])

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "K": self.K, "title": self.title, "citation": self.citation,
            "cite_key": self.cite_key, "published": self.published,
            "condorcet_winner": self.condorcet_winner,
            "copeland_winners": list(self.copeland_winners),
            "ties": [list(p) for p in self.ties], "arms": list(self.arms) if self.arms else None,
            "source": self.short, "note": self.note, "matrix": [list(r) for r in self.rows],
        }


def _from_upper(K: int, upper: dict[tuple[int, int], float]) -> tuple[tuple[float, ...], ...]:
    """Full matrix from the entries µ_ij, i < j (µ_ji = 1 − µ_ij)."""
    rows = [[0.5] * K for _ in range(K)]
    for (i, j), v in upper.items():
        rows[i][j] = v
        rows[j][i] = round(1.0 - v, 12)
    return tuple(tuple(r) for r in rows)


_K16 = "Komiyama, Honda, Nakagawa, Copeland Dueling Bandit Problem, ICML 2016"

_ALL = [
    Dataset(
        "cyclic", "Condorcet winner 0; arms 1, 2, 3 form a cycle 1 > 2 > 3 > 1",
        f"{_K16}, Table 2", "komiyama2016copeland",
        ((0.5, 0.6, 0.6, 0.6),
         (0.4, 0.5, 0.9, 0.1),
         (0.4, 0.1, 0.5, 0.9),
         (0.4, 0.9, 0.1, 0.5)),
        condorcet_winner=0, copeland_winners=(0,), short="Komiyama et al. 2016, Table 2",
        note="the matrix on which Komiyama et al. compare the bounds of CW-RMED, ECW-RMED "
             "and CCB in closed form (their Section 6 / Appendix)"),
    Dataset(
        "mslr5", "MSLR Informational click model, 5 rankers, Condorcet winner 0",
        "Zoghi, Karnin, Whiteson, de Rijke, Copeland Dueling Bandits, NIPS 2015 (5-ranker "
        "MSLR matrix); used by Wu & Liu, Double Thompson Sampling for Dueling Bandits, "
        "NIPS 2016, Fig. 1(a), and by Komiyama et al. 2016, Table 3(e)",
        "zoghi2015copeland",
        ((0.5, 0.53519466, 0.6125935, 0.75696008, 0.76547422),
         (0.46480534, 0.5, 0.57985831, 0.72745116, 0.73820053),
         (0.3874065, 0.42014169, 0.5, 0.65895708, 0.66877089),
         (0.24303992, 0.27254884, 0.34104292, 0.5, 0.50999465),
         (0.23452578, 0.26179947, 0.33122911, 0.49000535, 0.5)),
        condorcet_winner=0, copeland_winners=(0,), short="Zoghi et al. 2015; Wu & Liu 2016",
        note="rankers are MSLR features (unnamed in the sources); the smallest gap is "
             "0.0099947 between arms 3 and 4"),
    Dataset(
        "arxiv6", "six arXiv.org retrieval functions, a total order but one exact tie",
        "Yue & Joachims, Beat the Mean Bandit, ICML 2011 (arXiv.org experiment); "
        f"as printed in {_K16}, Appendix B, Table 3(d)",
        "yue2011beat",
        ((0.50, 0.55, 0.55, 0.54, 0.61, 0.61),
         (0.45, 0.50, 0.55, 0.55, 0.58, 0.60),
         (0.45, 0.45, 0.50, 0.54, 0.51, 0.56),
         (0.46, 0.45, 0.46, 0.50, 0.54, 0.50),
         (0.39, 0.42, 0.49, 0.46, 0.50, 0.51),
         (0.39, 0.40, 0.44, 0.50, 0.49, 0.50)),
        condorcet_winner=0, copeland_winners=(0,), ties=((3, 5),),
        short="Yue & Joachims 2011 (via Komiyama et al. 2016)",
        note="mu_46 = 1/2 in the paper's 1-based numbering violates the no-ties assumption; "
             "Komiyama et al. still call arm 1 (0-based 0) the Copeland winner. Load with "
             "break_ties=EPS: arm 3 then beats arm 5 by EPS, which leaves winner 0 unchanged"),
    Dataset(
        "arithmetic", "transitive: mu_ij = 1/2 + (j - i)/10 for i < j", "ours", None,
        _from_upper(5, {(i, j): round(0.5 + (j - i) / 10, 12)
                        for i in range(5) for j in range(i + 1, 5)}),
        condorcet_winner=0, copeland_winners=(0,), published=False),
    Dataset(
        "multi_winner", "no Condorcet winner; 0 > 1 > 2 > 0 all beat 3 and 4; three "
        "Copeland winners", "ours", None,
        _from_upper(5, {(0, 1): 0.6, (1, 2): 0.6, (0, 2): 0.4,
                        (0, 3): 0.7, (0, 4): 0.8, (1, 3): 0.75, (1, 4): 0.7,
                        (2, 3): 0.8, (2, 4): 0.75, (3, 4): 0.6}),
        condorcet_winner=None, copeland_winners=(0, 1, 2), published=False),
    Dataset(
        "unique_copeland", "unique Copeland winner 0 (loses only to 4), not a Condorcet "
        "winner", "ours", None,
        _from_upper(5, {(0, 1): 0.6, (0, 2): 0.65, (0, 3): 0.7, (0, 4): 0.4,
                        (1, 2): 0.7, (2, 3): 0.7, (1, 3): 0.3,
                        (1, 4): 0.8, (2, 4): 0.75, (3, 4): 0.7}),
        condorcet_winner=None, copeland_winners=(0,), published=False),
]

#: Every bundled dataset by name.
DATASETS: dict[str, Dataset] = {d.name: d for d in _ALL}


def names() -> list[str]:
    """Names of the bundled datasets, sorted."""
    return sorted(DATASETS)


def get(name: str) -> Dataset:
    """The :class:`Dataset` called ``name``."""
    try:
        return DATASETS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown dataset {name!r}; bundled: {', '.join(names())} "
            "(list them with 'duelbound datasets')") from None


def load(name: str, break_ties: float | None = None) -> PreferenceMatrix:
    """The bundled dataset ``name`` as a :class:`PreferenceMatrix` (see :meth:`Dataset.load`)."""
    return get(name).load(break_ties=break_ties)


def describe(name: str) -> str:
    """One line: title and citation."""
    d = get(name)
    return f"{d.title} [{d.citation}]"
