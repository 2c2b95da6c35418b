"""Win counts and comparison logs: preference matrices estimated from observed duels.

This module gathers the names of both (its historical import path): :class:`WinCounts`,
:func:`as_win_counts` and :func:`undefined_pairs` live in :mod:`duelbound.theory.win_counts`,
the log reader :func:`read_comparisons` in :mod:`duelbound.theory.logs`; the table readers
:func:`read_counts`, :func:`write_counts` and :func:`sample_counts` are here.

A :class:`WinCounts` holds W_ij = the number of duels arm i won against arm j.  Its
:meth:`~WinCounts.matrix` is the plug-in estimate µ̂_ij = W_ij / (W_ij + W_ji) as a validated
:class:`~duelbound.theory.matrix.PreferenceMatrix` (arms and name carried over).

Every table of wins enters through :class:`WinCounts` (:func:`as_win_counts` passes one
through and validates anything else), and :func:`undefined_pairs` is the one place that
finds the tied and never-compared pairs that leave µ̂ without a tournament.

Two readers build one:

* :func:`read_counts` — a K×K matrix of wins in any matrix format (text/CSV/TSV, ``.npy``,
  JSON with ``"wins"`` or ``"matrix"``), with or without arm names;
* :func:`~duelbound.theory.logs.read_comparisons` — a log with one comparison per line:
  CSV/TSV (or whitespace) with a header row naming the columns ``winner,loser[,count]`` or
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

import os
from typing import Any

import numpy as np

from .errors import InvalidMatrixError, MatrixFileError
from .io import read_table, short, write_table
from .logs import (
    DRAW_CODES,
    DRAW_POLICIES,
    LMSYS_COLUMNS,
    MAX_LOG_LINE_BYTES,
    OUTCOME_COLUMNS,
    PROGRESS_MIN_BYTES,
    WINNER_COLUMNS,
    read_comparisons,
)
from .win_counts import (
    MAX_COUNT,
    MAX_LISTED_PAIRS,
    UndefinedPairs,
    WinCounts,
    as_win_counts,
    pairs_text,
    undefined_pairs,
)

__all__ = ["WinCounts", "as_win_counts", "undefined_pairs", "UndefinedPairs",
           "MAX_LISTED_PAIRS", "read_counts", "read_comparisons", "write_counts", "sample_counts",
           "MAX_COUNT", "pairs_text", "WINNER_COLUMNS", "OUTCOME_COLUMNS", "LMSYS_COLUMNS",
           "DRAW_POLICIES", "DRAW_CODES", "MAX_LOG_LINE_BYTES", "PROGRESS_MIN_BYTES"]

_COUNTS_JSON_KEYS = frozenset({"name", "arms", "K", "n_comparisons", "notes"})


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
