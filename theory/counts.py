"""Win counts and comparison logs: preference matrices estimated from observed duels.

A :class:`WinCounts` holds W_ij = the number of duels arm i won against arm j.  Its
:meth:`~WinCounts.matrix` is the plug-in estimate µ̂_ij = W_ij / (W_ij + W_ji) as a validated
:class:`~duelbound.theory.matrix.PreferenceMatrix` (arms and name carried over).

Two readers build one:

* :func:`read_counts` — a K×K matrix of wins in any matrix format (text/CSV/TSV, ``.npy``,
  JSON with ``"wins"`` or ``"matrix"``), with or without arm names;
* :func:`read_comparisons` — a log with one comparison per line: CSV/TSV (or whitespace)
  with a header row naming the columns ``winner,loser[,count]`` or
  ``arm_a,arm_b,outcome[,count]``, or JSON Lines with the same keys.

Decisions (documented in ``docs/theory.md``, "Data formats"):

* ``outcome`` is ``1``/``a`` (arm_a won), ``0``/``b`` (arm_b won) or the winner's name; an
  outcome that is a code for one arm and the name of the other is refused as ambiguous;
* the LMSYS / Chatbot Arena export ``model_a,model_b,winner`` is read directly: winner
  ``model_a`` / ``model_b`` names the side that won, ``tie`` and ``tie (bothbad)`` are draws;
* draws (outcome ``draw``, ``tie``, ``tie (bothbad)``, ``d``, ``0.5``) follow a policy:
  ``"half"`` (default: ½ win to each arm, the Elo / Bradley–Terry convention, so counts
  may be halves), ``"drop"`` (ignored) or ``"refuse"``; a note says how many were counted
  how;
* arms are numbered in order of first appearance in the log, except that when every name is
  a decimal integer they are numbered in numeric order (``arms=`` fixes any order);
* self-comparisons (an arm against itself: log lines, or a non-zero diagonal of a counts
  matrix) carry no information: they are ignored and a note says how many;
* other log columns/keys are ignored with a note;
* refused: a pair never compared (named), a pair won equally often (its estimate is exactly
  1/2, a tie: pass ``break_ties``), negative or non-integer counts, counts above
  :data:`MAX_COUNT`.

Examples
--------
>>> from duelbound.theory import WinCounts
>>> C = WinCounts([[0, 7, 9], [3, 0, 6], [1, 4, 0]], arms=("a", "b", "c"))
>>> C.n_comparisons, C.matrix()[0, 1]
(30, 0.7)
"""

from __future__ import annotations

import csv
import itertools
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import DuelboundError, InvalidMatrixError, MatrixFileError, TieError
from .io import load_json, open_regular, read_table, short, write_table
from .matrix import MAX_K, PreferenceMatrix, check_arm_names

__all__ = ["WinCounts", "as_win_counts", "undefined_pairs", "UndefinedPairs",
           "MAX_LISTED_PAIRS", "read_counts", "read_comparisons", "write_counts", "sample_counts",
           "MAX_COUNT", "WINNER_COLUMNS", "OUTCOME_COLUMNS", "LMSYS_COLUMNS", "DRAW_POLICIES",
           "DRAW_CODES"]

#: Largest count accepted in one cell (2^48): sums of a row stay exact in int64 and every
#: W_ij + W_ji is exact in float64, so µ̂_ij is the correctly rounded quotient.
MAX_COUNT = 2 ** 48

#: Column names of the two log forms (case-insensitive; ``count`` is optional in both).
WINNER_COLUMNS = ("winner", "loser")
OUTCOME_COLUMNS = ("arm_a", "arm_b", "outcome")
#: The LMSYS / Chatbot Arena export: winner is "model_a", "model_b", "tie", "tie (bothbad)".
LMSYS_COLUMNS = ("model_a", "model_b", "winner")
#: What a draw counts as: ½ win to each arm, nothing, or an error.
DRAW_POLICIES = ("half", "drop", "refuse")
#: Outcomes read as a draw (case-insensitive).
DRAW_CODES = ("draw", "tie", "tie (bothbad)", "d", "0.5")

_COUNTS_JSON_KEYS = frozenset({"name", "arms", "K", "n_comparisons", "notes"})
_DIGITS = re.compile(r"\d+", re.ASCII)
_A_CODES, _B_CODES = ("1", "a"), ("0", "b")
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


# -- reading a counts matrix ----------------------------------------------------------------
def sample_counts(mu: Any, n: Any, rng: np.random.Generator) -> np.ndarray:
    """Win counts drawn from a known matrix: W_ab ~ Binomial(n_ab, µ_ab), W_ba = n_ab − W_ab.

    Parameters
    ----------
    mu : array_like or PreferenceMatrix
        The true K×K preference matrix.
    n : int or array_like
        Comparisons per pair (a scalar, or one value per pair a < b in row-major order).
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
        K×K int64 wins, zero diagonal (what an experiment with these counts would log).
    """
    mu = np.asarray(mu, dtype=np.float64)
    K = mu.shape[0]
    iu = np.triu_indices(K, 1)
    nn = np.broadcast_to(np.asarray(n), iu[0].shape)
    W = np.zeros((K, K), dtype=np.int64)
    W[iu] = rng.binomial(nn, mu[iu])
    W[iu[1], iu[0]] = nn - W[iu]
    return W


def read_counts(path: str | os.PathLike[str], *, name: str | None = None) -> WinCounts:
    """Read a K×K matrix of wins (W_ij = times i beat j) from any matrix format.

    Text/CSV/TSV (optional header row / first column of names), ``.npy`` (with its
    ``STEM.arms.json`` sidecar), or JSON: a list of rows, or an object with ``"wins"`` (or
    ``"matrix"``) and optionally ``"arms"``, ``"name"``, ``"K"``, ``"n_comparisons"``,
    ``"notes"`` — the output of :meth:`WinCounts.to_dict`.

    Parameters
    ----------
    path : path-like
        The file.
    name : str, optional
        Label; defaults to the name stored in the file or the file's stem.

    Raises
    ------
    MatrixFileError, InvalidMatrixError
        Unreadable or malformed file; negative, non-integer or too large counts.
    """
    table = read_table(path, grid_keys=("wins", "matrix"), meta_keys=_COUNTS_JSON_KEYS)
    notes = table.meta.get("notes") or []
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise MatrixFileError(f"{table.origin}: 'notes' must be a list of strings")
    try:
        C = WinCounts(table.values, arms=table.arms, name=name or table.name or table.stem,
                      notes=tuple(notes), source=table.path)
    except InvalidMatrixError as exc:
        exc.args = (f"{table.origin}: {exc}",)
        raise
    want = table.meta.get("n_comparisons")
    if want is not None and want != C.n_comparisons:
        raise MatrixFileError(f"{table.origin}: 'n_comparisons' is {short(want)} but the counts "
                              f"hold {C.n_comparisons} duels")
    return C


def write_counts(C: WinCounts, path: str | os.PathLike[str]) -> str:
    """Write counts so that :func:`read_counts` reads them back (names survive every format)."""
    return write_table(C.wins, path, arms=C.arms, name=C.name, json_data=C.to_dict())


# -- reading a comparison log ---------------------------------------------------------------
def _at(origin: str, n: int) -> str:
    return f"{origin}: line {n}"


def _winner(a: str, b: str, outcome: str, origin: str, n: int,
            lmsys: bool = False) -> tuple[str, str] | None:
    """(winner, loser) of arm_a vs arm_b from an outcome code or the winner's name;
    None for a draw (:data:`DRAW_CODES`).  ``lmsys``: the outcome is model_a / model_b."""
    code = outcome.strip().lower()
    if code in DRAW_CODES:
        return None
    if lmsys:
        if code not in ("model_a", "model_b"):
            raise MatrixFileError(
                f"{_at(origin, n)}: winner {short(outcome)} is not model_a, model_b, tie or "
                "tie (bothbad) (the LMSYS export's values)")
        return (a, b) if code == "model_a" else (b, a)
    by_code = a if outcome in _A_CODES else b if outcome in _B_CODES else None
    by_name = a if outcome == a else b if outcome == b else None
    if by_code is not None and by_name is not None and by_code != by_name:
        raise MatrixFileError(
            f"{_at(origin, n)}: outcome {short(outcome)} is ambiguous: a code for one arm and "
            "the name of the other (write 'a'/'b' codes that are not arm names, or use "
            "winner,loser columns)")
    won = by_name or by_code
    if won is None:
        raise MatrixFileError(
            f"{_at(origin, n)}: outcome {short(outcome)} is not 1/0, a/b, a draw code "
            f"({', '.join(DRAW_CODES)}) or the name of {short(a)} or {short(b)}")
    return (a, b) if won == a else (b, a)


def _count(text: str, origin: str, n: int) -> int:
    if not _DIGITS.fullmatch(text):
        raise MatrixFileError(f"{_at(origin, n)}: count {short(text)} is not a non-negative "
                              "integer")
    if len(text) > 15 or int(text) > MAX_COUNT:
        raise MatrixFileError(f"{_at(origin, n)}: count {short(text)} is above {MAX_COUNT}")
    return int(text)


def _form(names: Sequence[str], origin: str, n: int) -> tuple[str, ...]:
    """The log form (its required columns) named by a header."""
    forms = [f for f in (WINNER_COLUMNS, OUTCOME_COLUMNS, LMSYS_COLUMNS) if set(f) <= set(names)]
    if len(forms) != 1:
        what = "several forms" if forms else f"columns {short(', '.join(names), 80)}"
        raise MatrixFileError(
            f"{_at(origin, n)}: {what}: a comparison log needs a header naming the columns "
            "winner,loser[,count], arm_a,arm_b,outcome[,count] or model_a,model_b,winner "
            "(the LMSYS export)")
    return forms[0]


# A comparison as read: line number, first arm, second arm, outcome (or None), count (or None).
_Row = tuple[int, str, str, "str | None", "str | None"]
#: Longest line of a comparison log (characters are at most 4 bytes): a longer line is an
#: error before it is held in memory (one 20 MB line once took 5.5 GB).
MAX_LOG_LINE_BYTES = 1 << 20
#: Logs larger than this show a progress bar over the bytes read (when asked to).
PROGRESS_MIN_BYTES = 32 << 20


def _log_lines(path: str, origin: str, progress: bool) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of a log that is not blank or a ``#`` comment,
    read one line at a time: memory holds one line (at most :data:`MAX_LOG_LINE_BYTES`),
    whatever the size of the file."""
    from tqdm import tqdm

    fh = open_regular(path)
    size = os.fstat(fh.fileno()).st_size
    with fh, tqdm(total=size, unit="B", unit_scale=True, leave=False,
                  desc=f"reading {short(origin, 40)}",
                  disable=None if progress and size >= PROGRESS_MIN_BYTES else True) as bar:
        n = 0
        while True:
            try:
                raw = fh.readline(MAX_LOG_LINE_BYTES + 1)
            except OSError as exc:
                raise MatrixFileError(f"{origin}: unreadable ({exc.strerror or exc})") from None
            if not raw:
                return
            n += 1
            bar.update(len(raw))
            if len(raw) > MAX_LOG_LINE_BYTES and not raw.endswith(b"\n"):
                raise MatrixFileError(f"{_at(origin, n)}: longer than {MAX_LOG_LINE_BYTES} "
                                      "bytes (one duel per line is a few dozen; is this a log?)")
            try:
                line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError:
                raise MatrixFileError(f"{_at(origin, n)}: not UTF-8 text") from None
            if "\x00" in line:
                raise MatrixFileError(f"{_at(origin, n)}: binary content in a text file")
            if line.strip() and not line.lstrip().startswith("#"):
                yield n, line.rstrip("\r\n")


def _csv_rows(lines: Iterator[tuple[int, str]], origin: str
              ) -> tuple[tuple[str, ...], set[str], Iterator[_Row]]:
    head = next(lines, None)
    if head is None:
        raise MatrixFileError(f"{origin}: no comparisons (empty log)")
    first, header = head
    numbers = [first]  # the line number of the row csv is reading (its own iterator)

    def texts() -> Iterator[str]:
        for n, line in lines:
            numbers[0] = n
            yield line

    delim = next((d for d in ("\t", ",", ";") if d in header), None)
    if delim is None:
        keys = [h.strip().lower() for h in header.split()]
        cells_iter: Iterator[list[str]] = (line.split() for line in texts())
    else:
        try:
            keys = [h.strip().lower() for h in next(csv.reader([header], delimiter=delim))]
        except csv.Error as exc:
            raise MatrixFileError(f"{origin}: unreadable CSV header ({exc})") from None
        cells_iter = ([c.strip() for c in cells] for cells in csv.reader(
            texts(), delimiter=delim, skipinitialspace=True))
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise MatrixFileError(f"{_at(origin, first)}: repeated column(s) {', '.join(dup)}")
    form = _form(keys, origin, first)
    extra = {k for k in keys if k not in form and k != "count"}
    i0, i1 = keys.index(form[0]), keys.index(form[1])
    io_ = keys.index(form[2]) if len(form) == 3 else None
    ic = keys.index("count") if "count" in keys else None
    width = len(keys)

    def rows() -> Iterator[_Row]:
        try:
            yield from _checked_rows()
        except csv.Error as exc:  # a field over 128 KiB after a stray quote, a NUL, ...
            raise MatrixFileError(f"{origin}: unreadable CSV ({exc}; an unbalanced "
                                  "quote?)") from None

    def _checked_rows() -> Iterator[_Row]:
        for cells in cells_iter:
            n = numbers[0]
            if len(cells) != width:
                raise MatrixFileError(f"{_at(origin, n)}: {len(cells)} cells but the header "
                                      f"names {width} columns")
            yield (n, cells[i0], cells[i1], None if io_ is None else cells[io_],
                   None if ic is None else cells[ic])

    return form, extra, rows()


def _cell(rec: dict[str, Any], key: str, origin: str, n: int) -> str:
    """A JSON Lines value as a stripped string: a JSON string or integer."""
    value = rec[key]
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    shown = f"JSON {str(value).lower()}" if isinstance(value, bool) else short(value)
    raise MatrixFileError(f"{_at(origin, n)}: {key!r} must be a string or an integer, got "
                          f"{shown}")


def _jsonl_record(n: int, line: str, origin: str) -> dict[str, Any]:
    obj = load_json(line, _at(origin, n))
    if not isinstance(obj, dict):
        raise MatrixFileError(f"{_at(origin, n)}: each line of a JSON Lines log must be an "
                              "object")
    rec = {str(k).strip().lower(): v for k, v in obj.items()}
    if len(rec) != len(obj):
        raise MatrixFileError(f"{_at(origin, n)}: keys repeated up to case or spaces")
    return rec


def _jsonl_rows(lines: Iterator[tuple[int, str]], origin: str
                ) -> tuple[tuple[str, ...], set[str], Iterator[_Row]]:
    head = next(lines, None)
    if head is None:
        raise MatrixFileError(f"{origin}: no comparisons (empty log)")
    first = (head[0], _jsonl_record(*head, origin))
    form = _form(list(first[1]), origin, first[0])
    extra: set[str] = set()
    needed = (*form, "count")

    def records() -> Iterator[tuple[int, dict[str, Any]]]:
        yield first
        for n, line in lines:
            yield n, _jsonl_record(n, line, origin)

    def rows() -> Iterator[_Row]:
        for n, rec in records():
            missing = [k for k in form if k not in rec]
            if missing:
                raise MatrixFileError(f"{_at(origin, n)}: missing {', '.join(missing)}")
            extra.update(k for k in rec if k not in needed)
            yield (n, _cell(rec, form[0], origin, n), _cell(rec, form[1], origin, n),
                   _cell(rec, form[2], origin, n) if len(form) == 3 else None,
                   _cell(rec, "count", origin, n) if "count" in rec else None)

    return form, extra, rows()


def _numeric_order(names: Sequence[str]) -> bool:
    return all(_DIGITS.fullmatch(n) and len(n) < 30 for n in names)


def read_comparisons(path: str | os.PathLike[str], *, name: str | None = None,
                     arms: Sequence[str] | None = None, draw_policy: str = "half",
                     progress: bool = False) -> WinCounts:
    """Read a comparison log (one duel, or ``count`` duels, per line) into win counts.

    Accepted forms (a header row names the columns, case-insensitive; JSON Lines uses the
    same keys):

    * ``winner,loser[,count]``;
    * ``arm_a,arm_b,outcome[,count]`` with outcome ``1``/``a`` (arm_a won), ``0``/``b``
      (arm_b won), the winner's name, or a draw (:data:`DRAW_CODES`);
    * ``model_a,model_b,winner`` (the LMSYS / Chatbot Arena export) with winner
      ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``.

    CSV (``,`` or ``;``), TSV and whitespace-separated files are detected from the header
    line; ``#`` lines are comments; ``.jsonl``/``.ndjson`` files, or content starting with
    ``{``, are JSON Lines.  Other columns/keys are ignored with a note; self-comparisons are
    ignored with a note.

    Parameters
    ----------
    path : path-like
        The log file.
    name : str, optional
        Label; defaults to the file's stem.
    arms : sequence of str, optional
        The arms in the order wanted (every arm of the log must be listed).  Default: order of
        first appearance, or numeric order when every name is a decimal integer.
    draw_policy : {"half", "drop", "refuse"}
        A draw counts ½ win to each arm (default), nothing, or is an error.
    progress : bool
        A bar over the bytes read on stderr for logs over 32 MiB (tqdm; silent when not a
        terminal).

    Notes
    -----
    The log is read one line at a time (no limit on its size; a line over
    :data:`MAX_LOG_LINE_BYTES` is an error): memory grows with the number of arms and of
    distinct pairs, not with the number of rows (10⁷ rows of K = 300: see
    benchmarks/bench_logs.py).

    Raises
    ------
    MatrixFileError
        Unreadable file, missing header, unknown outcome, bad count, empty log, a draw with
        ``draw_policy="refuse"``.
    """
    if draw_policy not in DRAW_POLICIES:
        raise DuelboundError(f"unknown draw policy {draw_policy!r}; choose "
                             f"{', '.join(DRAW_POLICIES)}")
    path = os.fspath(path)
    origin = os.path.basename(path) or path
    fixed = check_arm_names(list(arms), len(arms)) if arms is not None else None
    lines = _log_lines(path, origin, progress)
    head = next(lines, None)
    if head is None:
        raise MatrixFileError(f"{origin}: no comparisons (empty log)")
    jsonl = path.endswith((".jsonl", ".ndjson")) or head[1].lstrip().startswith("{")
    form, extra, rows = (_jsonl_rows if jsonl else _csv_rows)(
        itertools.chain([head], lines), origin)
    outcome_form, lmsys = len(form) == 3, form == LMSYS_COLUMNS
    # arms interned to indices as they appear; counts keyed by index pairs (a dict of ints,
    # not of name tuples: a 10^7-row log holds one entry per distinct pair)
    index: dict[str, int] = {a: i for i, a in enumerate(fixed or ())}
    tally: Counter[int] = Counter()
    drawn: Counter[int] = Counter()
    n_self = records = 0

    def arm(a: str, n: int) -> int:
        i = index.get(a)
        if i is None:
            if not a:
                raise MatrixFileError(f"{_at(origin, n)}: empty arm name")
            if fixed is not None:
                raise MatrixFileError(f"{_at(origin, n)}: arm {short(a)} is in the log but not "
                                      "one of the given arms")
            if len(index) >= MAX_K:
                raise MatrixFileError(f"{_at(origin, n)}: more than {MAX_K} arms (the "
                                      "maximum)")
            i = index[a] = len(index)
        return i

    for n, a, b, outcome, count in rows:
        ia, ib = arm(a, n), arm(b, n)
        c = 1 if count is None else _count(count, origin, n)
        records += 1
        if outcome_form:
            won = _winner(a, b, outcome or "", origin, n, lmsys)
            if won is None:
                if draw_policy == "refuse":
                    raise MatrixFileError(
                        f"{_at(origin, n)}: a draw ({short(outcome)}); choose a draw policy: "
                        "half (½ win to each arm, the Elo convention) or drop "
                        "(CLI: --draw-policy)")
                if ia != ib:
                    drawn[min(ia, ib) * MAX_K + max(ia, ib)] += c
                else:
                    n_self += c
                continue
            if won[0] != a:
                ia, ib = ib, ia
        if ia == ib:
            n_self += c
        else:
            tally[ia * MAX_K + ib] += c
    if not records:
        raise MatrixFileError(f"{origin}: no comparisons (only a header)")
    if len(index) < 2:
        raise MatrixFileError(f"{origin}: the log names {len(index)} arm(s); need at least 2")
    names = list(index)
    order = np.arange(len(names))
    if fixed is None and _numeric_order(names):
        order = np.array(sorted(order, key=lambda i: int(names[i])), dtype=np.int64)
    pos = np.empty(len(names), dtype=np.int64)
    pos[order] = np.arange(len(names))  # pos[first-appearance index] = row of W
    halves = draw_policy == "half" and any(c % 2 for c in drawn.values())
    W: np.ndarray = np.zeros((len(names), len(names)),
                             dtype=np.float64 if halves else np.int64)
    for key, c in tally.items():
        w, l = divmod(key, MAX_K)
        if c > MAX_COUNT:
            raise MatrixFileError(f"{origin}: more than {MAX_COUNT} wins of "
                                  f"{short(names[w])} over {short(names[l])}")
        W[pos[w], pos[l]] = c
    notes: list[str] = []
    n_draws = sum(drawn.values())
    if n_draws and draw_policy == "half":
        for key, c in drawn.items():
            ra, rb = (int(pos[i]) for i in divmod(key, MAX_K))
            W[ra, rb] += c / 2 if halves else c // 2
            W[rb, ra] += c / 2 if halves else c // 2
        notes.append(f"counted {n_draws} draw(s) as 1/2 win to each arm (draw policy 'half'; "
                     f"{n_draws / (n_draws + sum(tally.values())):.1%} of the duels)")
    elif n_draws:
        notes.append(f"dropped {n_draws} draw(s) (draw policy 'drop')")
    if n_self:
        notes.append(f"ignored {n_self} self-comparison(s) (an arm against itself carries no "
                     "information)")
    if extra:
        notes.append(f"ignored column(s) {', '.join(sorted(extra))}")
    return WinCounts(W, arms=tuple(names[i] for i in order),
                     name=name or os.path.splitext(origin)[0],
                     notes=tuple(notes), source=path)
