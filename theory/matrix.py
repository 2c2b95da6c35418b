"""Preference matrices: the validated, immutable input of every computation.

A preference matrix M = (µ_ij) holds the probability that arm i beats arm j in
one duel; µ_ij + µ_ji = 1 and µ_ii = 1/2 (docs/math.md §1).  All bounds assume no ties
(Assumption A, docs/math.md §1), so exact ties are rejected unless the caller explicitly asks
for them to be broken.

Examples
--------
>>> from duelbound.theory import PreferenceMatrix
>>> M = PreferenceMatrix([[0.5, 0.7], [0.3, 0.5]], name="two")
>>> M.K, M[0, 1]
(2, 0.7)
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np

from .errors import DuelboundError, InvalidMatrixError, TieError

__all__ = ["PreferenceMatrix", "COMPLEMENT_ATOL", "MAX_K"]

#: Tolerance on |µ_ij + µ_ji − 1| and |µ_ii − 1/2| accepted on input.  Inputs
#: within it are canonicalised so that the stored floats satisfy both exactly.
COMPLEMENT_ATOL = 1e-9

#: Largest number of arms accepted (a 10^4 × 10^4 float matrix is 800 MB).
MAX_K = 10_000

_MAX_LISTED = 6  # offending entries named in an error message


def format_entries(entries: list[tuple[int, int]]) -> str:
    """``(i,j), (k,l) and N more``: offending entries named in an error message.

    Parameters
    ----------
    entries : list of (int, int)
        0-based (row, column) entries.

    Returns
    -------
    str
        The first few entries, then how many more there are.
    """
    shown = ", ".join(f"({i},{j})" for i, j in entries[:_MAX_LISTED])
    more = len(entries) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _named(arms: tuple[str, ...] | None, entries: list[tuple[int, int]]) -> str:
    """`` (a vs b, ...)`` for named arms, else the empty string."""
    if arms is None:
        return ""
    shown = ", ".join(f"{arms[i]} vs {arms[j]}" for i, j in entries[:_MAX_LISTED])
    return f" ({shown}{', ...' if len(entries) > _MAX_LISTED else ''})"


def _as_float_array(values: Any) -> np.ndarray:
    """``values`` as a float64 array; booleans, strings, complex and other non-numbers refused.

    Python numbers, NumPy integer/float arrays and objects convertible to a real float
    (``Fraction``, sympy rationals) are accepted; ``True``/``False`` and number strings such as
    ``"0.5"`` are refused rather than converted.
    """
    if isinstance(values, PreferenceMatrix):
        return values.values.copy()
    shape = getattr(values, "shape", None)
    if shape is not None and len(shape) == 2 and max(shape) > MAX_K:
        # refuse before converting: a huge array would be copied first
        raise InvalidMatrixError(f"K = {max(shape)} exceeds the supported maximum {MAX_K}",
                                 "too-large")
    try:
        raw = np.asarray(values)
    except (ValueError, TypeError) as exc:  # ragged rows end up here
        raise InvalidMatrixError(
            f"preference matrix must be a rectangular array of numbers ({exc})", "not-numeric"
        ) from None
    if raw.dtype.kind == "O":
        bad = next((v for v in raw.ravel() if isinstance(v, (str, bytes, bool, complex))
                    or v is None or isinstance(v, np.bool_)), _NONE)
        if bad is not _NONE:
            raise InvalidMatrixError(
                f"preference matrix entries must be numbers, got {bad!r:.40}", "not-numeric")
    elif raw.dtype.kind not in "iuf":
        kind = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes"}.get(
            raw.dtype.kind, f"dtype {raw.dtype}")
        raise InvalidMatrixError(f"preference matrix entries must be real numbers, got {kind}",
                                 "not-numeric")
    try:
        return np.array(raw, dtype=np.float64)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidMatrixError(
            f"preference matrix must be a rectangular array of numbers ({exc})", "not-numeric"
        ) from None


_NONE = object()


def check_arm_names(arms: Any, K: int) -> tuple[str, ...] | None:
    """Arm names as a tuple of unique non-empty strings, or None.

    Parameters
    ----------
    arms : sequence of str or None
        The names, one per arm.
    K : int
        The number of arms.

    Returns
    -------
    tuple of str or None
        The names stripped of surrounding white space.

    Raises
    ------
    InvalidMatrixError
        Not a list of K unique non-empty strings.
    """
    if arms is None:
        return None
    if isinstance(arms, str) or not hasattr(arms, "__iter__"):
        raise InvalidMatrixError(f"arm names must be a list of strings, got {arms!r}", "arms")
    names = tuple(arms)
    if len(names) != K:
        raise InvalidMatrixError(f"{len(names)} arm names given for K = {K} arms", "arms")
    bad = [n for n in names if not isinstance(n, str) or not n.strip()]
    if bad:
        raise InvalidMatrixError(f"arm names must be non-empty strings, got {bad[0]!r}", "arms")
    names = tuple(n.strip() for n in names)
    ctrl = next((n for n in names if any(unicodedata.category(c) == "Cc" for c in n)), None)
    if ctrl is not None:
        raise InvalidMatrixError(f"arm name {ctrl!r} contains a control character (newline, "
                                 "tab, ...): it would break tables and LaTeX; rename the arm",
                                 "arms")
    counts = Counter(names)
    dups = sorted(n for n, c in counts.items() if c > 1)
    if dups:
        raise InvalidMatrixError(f"arm names must be unique; repeated: {', '.join(dups)}",
                                 "arms")
    return names


def _validate(arr: np.ndarray, atol: float) -> None:
    """Raise InvalidMatrixError for everything but ties (checked after canonicalising)."""
    if arr.size == 0:
        raise InvalidMatrixError("preference matrix is empty", "empty")
    if arr.ndim != 2:
        raise InvalidMatrixError(
            f"preference matrix must be 2-dimensional, got shape {arr.shape}", "not-square"
        )
    if arr.shape[0] != arr.shape[1]:
        raise InvalidMatrixError(
            f"preference matrix must be square, got shape {arr.shape[0]}x{arr.shape[1]}",
            "not-square",
        )
    K = arr.shape[0]
    if K < 2:
        raise InvalidMatrixError(f"need at least K = 2 arms, got K = {K}", "too-small")
    if K > MAX_K:
        raise InvalidMatrixError(f"K = {K} exceeds the supported maximum {MAX_K}", "too-large")
    bad = [(int(e[0]), int(e[1])) for e in np.argwhere(~np.isfinite(arr))]
    if bad:
        raise InvalidMatrixError(f"non-finite entries (NaN/inf) at {format_entries(bad)}",
                                 "non-finite", bad)
    _check_scale(arr, atol)
    bad = [(int(e[0]), int(e[1])) for e in np.argwhere((arr < 0.0) | (arr > 1.0))]
    if bad:
        raise InvalidMatrixError(
            f"entries outside [0, 1] at {format_entries(bad)} "
            f"(e.g. {float(arr[bad[0]])!r}); entries are probabilities",
            "out-of-range", bad)
    diag = np.abs(np.diag(arr) - 0.5) > atol
    bad = [(int(i), int(i)) for i in np.flatnonzero(diag)]
    if bad:
        raise InvalidMatrixError(
            f"diagonal must be 1/2, found {float(arr[bad[0]])!r} at {format_entries(bad)}",
            "diagonal", bad)
    off = np.abs(arr + arr.T - 1.0) > atol
    bad = [(int(i), int(j)) for i, j in np.argwhere(np.triu(off, 1))]
    if bad:
        i, j = bad[0]
        raise InvalidMatrixError(
            f"mu_ij + mu_ji must be 1 (tolerance {atol:g}); fails at {format_entries(bad)}, "
            f"e.g. mu[{i},{j}] + mu[{j},{i}] = {float(arr[i, j] + arr[j, i])!r}",
            "not-complementary", bad)
    upper = np.triu(np.ones_like(arr, dtype=bool), 1)
    half = arr == 0.5
    bad = [(int(i), int(j)) for i, j in np.argwhere(upper & (half != half.T))]
    if bad:
        i, j = bad[0]
        raise InvalidMatrixError(
            f"one-sided tie at {format_entries(bad)}: mu[{i},{j}] = {float(arr[i, j])!r} but "
            f"mu[{j},{i}] = {float(arr[j, i])!r}; an exact 1/2 is a tie, so write 0.5 on both "
            "sides (and break the tie) or the winner's probability on both sides",
            "one-sided-tie", bad)
    both_win = upper & (((arr > 0.5) & (arr.T > 0.5)) | ((arr < 0.5) & (arr.T < 0.5)))
    bad = [(int(i), int(j)) for i, j in np.argwhere(both_win)]
    if bad:
        raise InvalidMatrixError(
            f"mu_ij and mu_ji disagree on who wins at {format_entries(bad)}", "not-complementary",
            bad)


def _check_scale(arr: np.ndarray, atol: float) -> None:
    """Recognise percentages and win counts given as probabilities (one specific error each).

    Neither can be a valid preference matrix (its diagonal would be 50 or an integer, not 1/2),
    so these checks never refuse a valid matrix.
    """
    K = arr.shape[0]
    if arr.ndim != 2 or K != arr.shape[1] or K < 2 or arr.min() < 0.0:
        return
    off = ~np.eye(K, dtype=bool)
    integral = bool(np.all(arr == np.round(arr)))
    diag50 = bool(np.all(np.abs(np.diag(arr) - 50.0) <= 100.0 * atol))
    # 100 duels per pair also sum to 100: percentages need a diagonal of 50 or fractions
    if arr.max() > 1.0 and arr.max() <= 100.0 and (diag50 or not integral) and \
            np.all(np.abs(arr + arr.T - 100.0)[off] <= 100.0 * atol):
        raise InvalidMatrixError(
            "entries look like percentages (in [0, 100] with mu_ij + mu_ji = 100): divide "
            "every entry by 100 (the diagonal is then 1/2)", "percentages")
    if integral and np.any((arr + arr.T)[off] != 1.0):
        raise InvalidMatrixError(
            "entries look like win counts (non-negative integers, mu_ij + mu_ji != 1), not "
            "probabilities: read the file as counts (CLI: --counts FILE; Python: "
            "read_counts(path) or WinCounts(wins).matrix())", "looks-like-counts")


def _canonicalise(arr: np.ndarray) -> np.ndarray:
    """Make µ_ij + µ_ji = 1 and µ_ii = 1/2 hold exactly in floating point.

    For every pair the entry ≥ 1/2 is kept as given and the other is set to
    ``1 - v``; that subtraction is exact for v ∈ [1/2, 1] (Sterbenz lemma), so
    the rational values of the stored floats are exactly complementary.
    """
    win = np.maximum(arr, arr.T)
    out = np.where(arr >= arr.T, win, 1.0 - win)
    np.fill_diagonal(out, 0.5)
    return out


class PreferenceMatrix:
    """An immutable, validated K×K preference matrix (docs/math.md §1).

    Parameters
    ----------
    values : array_like or PreferenceMatrix
        K×K probabilities, ``values[i][j]`` = P(arm i beats arm j).
    name : str, optional
        Label used in tables and reports.
    arms : sequence of str, optional
        Names of the K arms (ranker or model names), unique and non-empty.  Every
        output names arms when they are given; indices stay 0-based.
    break_ties : float, optional
        If given, every exact tie µ_ij = 1/2 (i < j) is replaced by
        µ_ij = 1/2 + break_ties, µ_ji = 1/2 − break_ties (the lower index wins).
        The matrix remembers this (:attr:`tie_epsilon`, :attr:`broken_ties`) and
        every bound computed on it is a bound for the perturbed matrix.
    atol : float
        Tolerance on |µ_ij + µ_ji − 1| and |µ_ii − 1/2| (default
        :data:`COMPLEMENT_ATOL` = 1e-9).  Accepted inputs are canonicalised so that
        both identities hold exactly (the entry ≥ 1/2 of each pair is kept).

    Raises
    ------
    InvalidMatrixError
        Not square, K < 2, NaN/inf, entries outside [0, 1], diagonal ≠ 1/2,
        µ_ij + µ_ji ≠ 1, a one-sided tie (µ_ij exactly 1/2 but µ_ji not exactly 1/2,
        within ``atol`` or not: canonicalisation never turns an explicit 1/2 into a
        winner), percentages or win counts given as probabilities (the message says what
        to do); the message names the offending entries.
    TieError
        Exact ties and ``break_ties`` not given (Assumption A, docs/math.md §1).

    Examples
    --------
    >>> M = PreferenceMatrix([[0.5, 0.5], [0.5, 0.5]], break_ties=0.01)
    >>> M[0, 1], M.broken_ties
    (0.51, ((0, 1),))
    """

    __slots__ = ("_values", "name", "tie_epsilon", "broken_ties", "source", "arms", "written")

    def __init__(
        self,
        values: Any,
        *,
        name: str | None = None,
        break_ties: float | None = None,
        atol: float = COMPLEMENT_ATOL,
        source: str | None = None,
        arms: Any = None,
    ) -> None:
        if arms is None and isinstance(values, PreferenceMatrix):
            arms = values.arms
        arr = _as_float_array(values)
        _validate(arr, atol)
        self.arms: tuple[str, ...] | None = check_arm_names(arms, arr.shape[0])
        arr = _canonicalise(arr)
        ties = [(int(i), int(j)) for i, j in np.argwhere(np.triu(arr == 0.5, 1))]
        if ties and break_ties is None:
            raise TieError(
                f"exact ties mu_ij = 1/2 at {format_entries(ties)}{_named(self.arms, ties)} "
                "violate Assumption A "
                "(no ties); pass break_ties=EPS (CLI: --break-ties EPS) to perturb them",
                ties)
        if break_ties is not None:
            eps = float(break_ties)
            if not 0.0 < eps < 0.5:
                raise InvalidMatrixError(f"break_ties must lie in (0, 1/2), got {eps!r}",
                                         "bad-epsilon")
            if ties and 0.5 + eps == 0.5:
                # 1/2 + eps rounds back to 1/2 for eps <= 2^-54: the tie would stay
                raise InvalidMatrixError(
                    f"break_ties = {eps!r} does not change 1/2 in binary64 (1/2 + eps rounds "
                    f"to 1/2); the smallest EPS that breaks a tie is {2.0 ** -53!r} (2^-53)",
                    "bad-epsilon")
            for i, j in ties:
                arr[i, j] = 0.5 + eps
                arr[j, i] = 1.0 - arr[i, j]
        arr.setflags(write=False)
        self._values = arr
        self.name = name
        self.tie_epsilon = float(break_ties) if (break_ties is not None and ties) else None
        self.broken_ties = tuple(ties) if break_ties is not None else ()
        self.source = source
        #: The decimal text of every entry as the user wrote it (K×K strings), when the
        #: matrix was read from text; see :meth:`exact_as_written`.
        self.written: tuple[tuple[str, ...], ...] | None = None

    # -- basic access ---------------------------------------------------------
    @property
    def values(self) -> np.ndarray:
        """The K×K float64 matrix (read-only view)."""
        return self._values

    @property
    def K(self) -> int:
        """Number of arms."""
        return int(self._values.shape[0])

    def label(self, i: int) -> str:
        """The name of arm ``i`` if the arms are named, else ``str(i)``."""
        return self.arms[i] if self.arms is not None else str(int(i))

    @property
    def labels(self) -> tuple[str, ...]:
        """One label per arm: the names if given, else ``"0"``, ``"1"``, …"""
        return self.arms if self.arms is not None else tuple(str(i) for i in range(self.K))

    def pair_label(self, i: int, j: int) -> str:
        """``"(i,j)"`` or, for named arms, ``"name_i vs name_j"``."""
        if self.arms is None:
            return f"({int(i)},{int(j)})"
        return f"{self.arms[i]} vs {self.arms[j]}"

    @property
    def perturbed(self) -> bool:
        """True if ties were broken, so results hold for a perturbed matrix."""
        return bool(self.broken_ties)

    def __getitem__(self, ij: tuple[int, int]) -> float:
        return float(self._values[ij])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._values if dtype is None else self._values.astype(dtype)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PreferenceMatrix):
            return NotImplemented
        return bool(np.array_equal(self._values, other._values))

    def __hash__(self) -> int:
        return hash(self._values.tobytes())

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<PreferenceMatrix{label} K={self.K}>"

    def __str__(self) -> str:
        return "\n".join(" ".join(f"{v:.6g}" for v in row) for row in self._values)

    # -- exact values -----------------------------------------------------------
    def exact(self) -> list[list[Fraction]]:
        """The exact rational values of the stored floats (docs/math.md §5.3).

        ``Fraction(float)`` is exact, and canonicalisation guarantees
        ``exact()[i][j] + exact()[j][i] == 1`` and ``exact()[i][i] == 1/2``.
        """
        return [[Fraction(float(v)) for v in row] for row in self._values]

    def exact_as_written(self) -> tuple[list[list[Fraction]], str]:
        """The matrix as the user wrote it, as exact rationals, and where it comes from.

        A text file's "0.6" is the rational 3/5, not the binary float
        0.59999999999999997780… that :meth:`exact` returns.  When the decimal text of
        the entries is known (:attr:`written`: text/CSV/JSON readers, bundled datasets),
        each pair takes the written entry ≥ 1/2 — the one canonicalisation keeps — read
        exactly, and µ_ji = 1 − µ_ij; pairs whose tie was broken, or whose text does
        not round to the stored float, keep the stored float.  The diagonal is 1/2.

        Returns
        -------
        mu : list of list of Fraction
            Exactly complementary rationals with the same tournament as the floats.
        source : str
            ``"written"`` (every pair from its decimal text), ``"float"`` (no text
            known: the stored floats) or ``"mixed"``.
        """
        K = self.K
        mu = self.exact()
        if self.written is None:
            return mu, "float"
        broken = set(self.broken_ties)
        used = fell_back = 0
        for i in range(K):
            for j in range(i + 1, K):
                a, b = (i, j) if self._values[i, j] > 0.5 else (j, i)
                try:
                    v = Fraction(self.written[a][b])
                except (ValueError, ZeroDivisionError):
                    v = None
                if (i, j) in broken or v is None or float(v) != float(self._values[a, b]):
                    fell_back += 1
                    continue
                mu[a][b], mu[b][a] = v, 1 - v
                used += 1
        return mu, "written" if not fell_back else "float" if not used else "mixed"

    def sympy(self):
        """The matrix as a ``sympy.Matrix`` of exact ``Rational`` entries."""
        import sympy

        return sympy.Matrix([[sympy.Rational(f.numerator, f.denominator) for f in row]
                             for row in self.exact()])

    # -- identity and serialisation ----------------------------------------------
    def content_hash(self) -> str:
        """SHA-256 (hex) of the canonical float64 values: the matrix's identity in stores."""
        h = hashlib.sha256()
        h.update(str(self.K).encode())
        h.update(np.ascontiguousarray(self._values, dtype="<f8").tobytes())
        return h.hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (JSON-ready); ``PreferenceMatrix.from_dict`` inverts it."""
        return {
            "name": self.name,
            "K": self.K,
            "arms": list(self.arms) if self.arms is not None else None,
            "matrix": self._values.tolist(),
            "tie_epsilon": self.tie_epsilon,
            "broken_ties": [list(p) for p in self.broken_ties],
            "sha256": self.content_hash(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PreferenceMatrix:
        """Rebuild from :meth:`to_dict` output (broken ties are already in the values)."""
        M = cls(data["matrix"], name=data.get("name"), arms=data.get("arms"))
        if data.get("broken_ties"):
            M.tie_epsilon = data.get("tie_epsilon")
            M.broken_ties = tuple(tuple(p) for p in data["broken_ties"])
        return M

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_pandas(cls, df: Any, *, name: str | None = None, **kwargs: Any) -> PreferenceMatrix:
        """Build from a square ``pandas.DataFrame``; its index and columns name the arms.

        Parameters
        ----------
        df : pandas.DataFrame
            ``df.loc[a, b]`` = P(arm a beats arm b).  Index and columns must list the same
            arms in the same order; a default ``RangeIndex`` (0, 1, …) on both means unnamed
            arms, and a default ``RangeIndex`` on one side takes the other side's names.
        name : str, optional
            Label; defaults to ``df.attrs["name"]`` if set.
        **kwargs
            Passed to :class:`PreferenceMatrix` (``break_ties``, ``atol``).

        Raises
        ------
        DuelboundError
            pandas is not installed (install the extra ``duelbound[pandas]``).
        InvalidMatrixError
            Index and columns disagree, or the values are not a valid preference matrix.
        """
        pd = _pandas()
        if not isinstance(df, pd.DataFrame):
            raise InvalidMatrixError(f"from_pandas needs a pandas.DataFrame, got "
                                     f"{type(df).__name__}", "not-numeric")
        index, columns = _frame_labels(df.index), _frame_labels(df.columns)
        if index is not None and columns is not None and index != columns:
            diff = next((i for i, (a, b) in enumerate(zip(index, columns)) if a != b),
                        min(len(index), len(columns)))
            raise InvalidMatrixError(
                "DataFrame index and columns must name the same arms in the same order; "
                f"they differ at position {diff}", "arms")
        arms = index if index is not None else columns
        if name is None:
            name = df.attrs.get("name")
        return cls(df.to_numpy(), name=name, arms=arms, **kwargs)

    def to_pandas(self) -> Any:
        """The matrix as a ``pandas.DataFrame`` indexed by arm (names, or 0…K−1).

        ``df.attrs["name"]`` holds :attr:`name`; :meth:`from_pandas` inverts this.
        """
        pd = _pandas()
        labels = list(self.arms) if self.arms is not None else None
        df = pd.DataFrame(np.array(self._values), index=labels, columns=labels)
        if self.name is not None:
            df.attrs["name"] = self.name
        return df

    def renamed(self, name: str | None) -> PreferenceMatrix:
        """The same matrix (values, arms, tie records, source) under another name."""
        new = object.__new__(PreferenceMatrix)
        for slot in PreferenceMatrix.__slots__:
            setattr(new, slot, getattr(self, slot))
        new.name = name
        return new

    def with_values(self, values: Any, name: str | None = None) -> PreferenceMatrix:
        """A new validated matrix with other values (same name unless given)."""
        return PreferenceMatrix(values, name=name if name is not None else self.name,
                                arms=self.arms)

    def with_written(self, cells: Any) -> PreferenceMatrix:
        """Record the decimal text of the entries (K×K strings; :meth:`exact_as_written`).

        Returns ``self``; a grid of the wrong shape is ignored (the floats then stand).
        """
        rows = tuple(tuple(str(c).strip() for c in row) for row in cells)
        if len(rows) == self.K and all(len(r) == self.K for r in rows):
            self.written = rows
        return self


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise DuelboundError("pandas is not installed; install the extra: "
                             "pip install 'duelbound[pandas]'") from None
    return pandas


def _frame_labels(index: Any) -> tuple[str, ...] | None:
    """Labels of a DataFrame axis as strings; None for a default RangeIndex 0..n-1."""
    pd = _pandas()
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return None
    return tuple(str(x) for x in index)
