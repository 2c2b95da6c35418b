"""Win counts W_ij (duels arm i won against arm j): the one way they enter the package.

:class:`WinCounts` validates a K×K table of wins (non-negative, finite, whole, or paired
halves where a draw gave ½ win to each arm; at most :data:`MAX_COUNT`); :func:`as_win_counts`
passes one through and validates anything else, so every door (the bounds, the structure,
the posterior, the interval and its table) refuses the same counts with the same words.
Its :meth:`~WinCounts.matrix` is the plug-in estimate µ̂_ij = W_ij / (W_ij + W_ji) as a
validated :class:`~duelbound.theory.matrix.PreferenceMatrix`.  :func:`undefined_pairs` is
the one place that finds the tied and never-compared pairs that leave µ̂ without a
tournament.  The readers are :func:`duelbound.theory.counts.read_counts` (a table) and
:func:`duelbound.theory.logs.read_comparisons` (a log).

Examples
--------
>>> from duelbound.theory.win_counts import WinCounts, undefined_pairs
>>> C = WinCounts([[0, 7, 9], [3, 0, 6], [1, 4, 0]], arms=("a", "b", "c"))
>>> C.n_comparisons, C.matrix()[0, 1]
(30, 0.7)
>>> undefined_pairs(WinCounts([[0, 2.5, 0], [2.5, 0, 1], [0, 3, 0]]))
UndefinedPairs(n_tied=1, n_never=1, tied=[(0, 1)], never=[(0, 2)])
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import DuelboundError, InvalidMatrixError, TieError
from .matrix import MAX_K, PreferenceMatrix, check_arm_names

__all__ = ["WinCounts", "as_win_counts", "undefined_pairs", "UndefinedPairs", "pairs_text",
           "MAX_LISTED_PAIRS", "MAX_COUNT"]

#: Largest count accepted in one cell (2^48): sums of a row stay exact in int64 and every
#: W_ij + W_ji is exact in float64, so µ̂_ij is the correctly rounded quotient.
MAX_COUNT = 2 ** 48
_MAX_LISTED = 6


def pairs_text(arms: tuple[str, ...] | None, pairs: list[tuple[int, int]],
               total: int | None = None, limit: int = _MAX_LISTED) -> str:
    """The first ``limit`` pairs by name (or index), then "and N more" (``total``: all of
    them)."""
    total = len(pairs) if total is None else total
    if arms is None:
        shown = ", ".join(f"({i},{j})" for i, j in pairs[:limit])
    else:
        shown = ", ".join(f"{arms[i]} vs {arms[j]}" for i, j in pairs[:limit])
    more = total - min(len(pairs), limit)
    return shown + (f" and {more} more" if more > 0 else "")


def _first_upper(mask: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """The first ``limit`` True entries (i, j), i < j, of a K×K mask, row by row, without
    listing all of them (a 10 000-arm log has 5·10⁷ pairs: a list of them all took
    gigabytes)."""
    out: list[tuple[int, int]] = []
    for i in range(mask.shape[0]):
        if len(out) >= limit:
            break
        out += [(i, int(j)) for j in i + 1 + np.flatnonzero(mask[i, i + 1:])[:limit - len(out)]]
    return out


#: Pairs listed by :func:`undefined_pairs` (they are counted all the same): a log naming
#: 10 000 arms in a chain has 5·10⁷ never-compared pairs, gigabytes as a list.
MAX_LISTED_PAIRS = 10_000

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


def undefined_pairs(W: Any, limit: int = MAX_LISTED_PAIRS) -> UndefinedPairs:
    """The tied and never-compared pairs of win counts W (K × K, or a :class:`WinCounts`):
    counted, and the first ``limit`` of each listed (memory O(K²) booleans, never a list of
    every pair).  The one place that decides which pairs leave µ̂ undefined."""
    W = np.asarray(getattr(W, "wins", W))
    seen = (W > 0) | (W.T > 0)
    tied = seen & (W == W.T)
    never = ~seen
    np.fill_diagonal(tied, False)
    np.fill_diagonal(never, False)
    return UndefinedPairs(int(np.count_nonzero(tied)) // 2, int(np.count_nonzero(never)) // 2,
                          _first_upper(tied, limit), _first_upper(never, limit))


def _as_array(wins: Any) -> np.ndarray:
    """A table of wins as a numeric array (no bools, strings or None)."""
    try:
        raw = np.asarray(wins)
    except (ValueError, TypeError) as exc:
        raise InvalidMatrixError(f"win counts must be a rectangular array ({exc})",
                                 "not-numeric") from None
    if raw.dtype.kind == "O":
        if any(isinstance(v, (bool, np.bool_, str, bytes)) or v is None for v in raw.ravel()):
            raise InvalidMatrixError("win counts must be integers", "not-numeric")
        try:
            raw = raw.astype(np.float64)
        except (ValueError, TypeError, OverflowError) as exc:
            raise InvalidMatrixError(f"win counts must be integers ({exc})",
                                     "not-numeric") from None
    if raw.dtype.kind not in "iuf":
        raise InvalidMatrixError(f"win counts must be integers, got dtype {raw.dtype}",
                                 "not-numeric")
    if raw.ndim != 2 or raw.shape[0] != raw.shape[1] or raw.size == 0:
        raise InvalidMatrixError(f"win counts must be a square K×K table, got shape "
                                 f"{raw.shape}", "not-square")
    K = raw.shape[0]
    if K < 2:
        raise InvalidMatrixError(f"need at least K = 2 arms, got K = {K}", "too-small")
    if K > MAX_K:
        raise InvalidMatrixError(f"K = {K} exceeds the supported maximum {MAX_K}", "too-large")
    return raw


def _refuse(mask: np.ndarray, raw: np.ndarray, arms: tuple[str, ...] | None, head: str,
            tail: str, kind: str) -> None:
    """Raise InvalidMatrixError ``"{head} at {pairs} (e.g. {value}){tail}"`` naming the
    entries of ``mask``, if any."""
    bad = [(int(e[0]), int(e[1])) for e in np.argwhere(mask)]
    if bad:
        eg = raw[bad[0]].item()  # a Python number: no numpy repr in the message
        raise InvalidMatrixError(f"{head} at {pairs_text(arms, bad)} (e.g. {eg!r}){tail}",
                                 kind, bad)


def _as_counts(wins: Any, names: Any) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """Validate a K×K table of wins and its arm names; the wins as int64, or as float64
    when draws made halves.

    Counts are non-negative, finite, at most :data:`MAX_COUNT`, and whole or halves; a half
    win only where a draw put it: ½ to each arm of the pair, so W_ij and W_ji have the same
    fractional part and W_ij + W_ji is a whole number of duels."""
    raw = _as_array(wins)
    arms = check_arm_names(names, raw.shape[0])
    halves = False
    if raw.dtype.kind == "f":
        _refuse(~np.isfinite(raw), raw, arms, "non-finite counts", "", "non-finite")
    _refuse(raw < 0, raw, arms, "negative counts", "; counts are numbers of wins",
            "negative-count")
    if raw.dtype.kind == "f":
        twice = 2 * raw
        looks = bool(np.all(raw <= 1.0) and np.all(np.diag(raw) == 0.5))
        hint = ("; this looks like a preference matrix (probabilities): read it as a matrix, "
                "not as counts") if looks else ""
        _refuse(twice != np.floor(twice), raw, arms, "non-integer counts", ": counts are "
                f"whole wins, or halves (a draw is ½ win to each arm){hint}",
                "non-integer-count")
        odd = (twice % 2) == 1
        np.fill_diagonal(odd, False)
        _refuse(odd & ~odd.T, raw, arms, "half wins without a half in return",
                ": a half win comes from a draw, ½ win to each arm, so W_ij and W_ji are "
                "both halves (W_ij + W_ji counts whole duels)", "unpaired-half")
        halves = bool(odd.any())
    _refuse(raw > MAX_COUNT, raw, arms, f"counts above {MAX_COUNT}", "", "too-large")
    return (raw.astype(np.float64) if halves else raw.astype(np.int64)), arms


@dataclass(frozen=True)
class WinCounts:
    """Observed duels: ``wins[i, j]`` = W_ij = the number of times arm i beat arm j.

    Parameters
    ----------
    wins : array_like
        K×K non-negative integers (integer-valued floats accepted), or halves where draws
        were counted as ½ win to each arm (then stored as float64).  A non-zero diagonal
        (self-comparisons) is set to zero and noted in :attr:`notes`.
    arms : sequence of str, optional
        Arm names (unique, non-empty), carried to :meth:`matrix`.
    name : str, optional
        Label, carried to :meth:`matrix`.
    notes : tuple of str
        What the reader ignored (self-comparisons, extra log columns), for reports.
    source : str, optional
        The file the counts came from.

    Raises
    ------
    InvalidMatrixError
        Not a square K×K table, K < 2, negative, non-integer, non-finite or too large counts,
        bad arm names.
    """

    wins: np.ndarray
    arms: tuple[str, ...] | None = None
    name: str | None = None
    notes: tuple[str, ...] = ()
    source: str | None = None

    def __post_init__(self) -> None:
        W, arms = _as_counts(self.wins, self.arms)
        notes = tuple(self.notes)
        diag = int(np.trace(W))
        if diag:
            notes += (f"ignored {diag} self-comparison(s) on the diagonal (an arm against "
                      "itself carries no information)",)
            np.fill_diagonal(W, 0)
        W.setflags(write=False)
        object.__setattr__(self, "wins", W)
        object.__setattr__(self, "arms", arms)
        object.__setattr__(self, "notes", notes)

    def __eq__(self, other: object) -> bool:
        """Equal wins and arm names (name, notes and source are labels, not data)."""
        if not isinstance(other, WinCounts):
            return NotImplemented
        return self.arms == other.arms and bool(np.array_equal(self.wins, other.wins))

    def __hash__(self) -> int:
        return hash((self.arms, self.wins.tobytes()))

    @property
    def K(self) -> int:
        """Number of arms."""
        return int(self.wins.shape[0])

    @property
    def n_comparisons(self) -> int:
        """Total number of duels counted, Σ_{i<j} (W_ij + W_ji) (self-comparisons excluded).

        A draw counted ½ win to each arm is one duel: the duels are counted, not the wins
        of each row rounded down (a 1 183-duel log with draws once reported 1 182)."""
        twice = np.rint(2 * self.wins).astype(np.int64)  # exact: halves are validated
        return int(twice.sum(dtype=np.int64)) // 2

    @property
    def pair_counts(self) -> np.ndarray:
        """N_ij = W_ij + W_ji, the number of duels of each pair (symmetric)."""
        return self.wins + self.wins.T

    def label(self, i: int) -> str:
        """The name of arm ``i`` if the arms are named, else ``str(i)``."""
        return self.arms[i] if self.arms is not None else str(int(i))

    def matrix(self, *, break_ties: float | None = None, name: str | None = None,
               ) -> PreferenceMatrix:
        """The estimated preference matrix µ̂_ij = W_ij / (W_ij + W_ji).

        Parameters
        ----------
        break_ties : float, optional
            Perturb pairs won equally often (µ̂_ij = 1/2 exactly), as in
            :class:`PreferenceMatrix`.
        name : str, optional
            Label; defaults to :attr:`name`.

        Raises
        ------
        InvalidMatrixError
            A pair was never compared (kind ``"unobserved"``; the pairs are named).
        TieError
            A pair was won equally often and ``break_ties`` is not given.
        """
        try:
            return self._matrix(break_ties, name)
        except InvalidMatrixError as exc:
            if self.source:
                exc.args = (f"{os.path.basename(self.source)}: {exc}",)
            raise

    def _matrix(self, break_ties: float | None, name: str | None) -> PreferenceMatrix:
        W = self.wins
        u = undefined_pairs(W, limit=_MAX_LISTED)
        n_missing, n_tied = u.n_never, u.n_tied
        if n_missing:
            missing = u.never
            raise InvalidMatrixError(
                f"no comparisons of {pairs_text(self.arms, missing, n_missing, limit=3)}: "
                "every pair needs at least one duel to estimate mu_ij = W_ij / (W_ij + W_ji) "
                "('duelbound bounds', 'structure' and 'table' answer from the posterior "
                "instead)", "unobserved", missing)
        if n_tied and break_ties is None:
            ties = u.tied
            i, j = ties[0]
            raise TieError(
                f"pairs won equally often, so their estimate is exactly 1/2 (a tie, Assumption "
                f"A fails): {pairs_text(self.arms, ties, n_tied, limit=3)} (e.g. {W[i, j]:g} : "
                f"{W[j, i]:g}); pass break_ties=EPS (CLI: --break-ties EPS) to perturb them "
                "('duelbound bounds', 'structure' and 'table' answer from the posterior "
                "without it)", ties)
        N = self.pair_counts
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = np.where(N > 0, W / np.where(N > 0, N, 1), 0.5)
        np.fill_diagonal(mu, 0.5)
        return PreferenceMatrix(mu, name=name if name is not None else self.name,
                                arms=self.arms, break_ties=break_ties, source=self.source)

    def reindex(self, arms: Sequence[str]) -> WinCounts:
        """The same counts with the arms in another order (``arms`` lists every name once)."""
        if self.arms is None:
            raise DuelboundError("reindex needs named arms")
        want = check_arm_names(list(arms), len(arms))
        if want is None or sorted(want) != sorted(self.arms):
            raise DuelboundError("reindex: the new order must list the same arm names")
        pos = {a: i for i, a in enumerate(self.arms)}
        idx = np.array([pos[a] for a in want])
        return WinCounts(self.wins[np.ix_(idx, idx)], arms=want, name=self.name,
                         notes=self.notes, source=self.source)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (JSON-ready); :meth:`from_dict` and :func:`read_counts` invert it."""
        return {"name": self.name, "K": self.K,
                "arms": list(self.arms) if self.arms is not None else None,
                "wins": self.wins.tolist(), "n_comparisons": self.n_comparisons,
                "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WinCounts:
        """Rebuild from :meth:`to_dict` output."""
        return cls(data["wins"], arms=data.get("arms"), name=data.get("name"),
                   notes=tuple(data.get("notes") or ()))


def as_win_counts(counts: Any) -> WinCounts:
    """``counts`` as a validated :class:`WinCounts`: the only way win counts enter.

    A ``WinCounts`` is returned as it is; an object with ``wins`` (and optional ``arms``,
    ``name``) or a K×K array is validated by :class:`WinCounts` (non-negative, finite,
    whole or paired halves, K ≥ 2).

    Raises
    ------
    InvalidMatrixError
        As :class:`WinCounts`.
    """
    if isinstance(counts, WinCounts):
        return counts
    return WinCounts(getattr(counts, "wins", counts), arms=getattr(counts, "arms", None),
                     name=getattr(counts, "name", None))
