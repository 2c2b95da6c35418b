"""Reading preference matrices from files.

Formats (picked from the extension, then from the content):

* ``.npy`` — a 2-D NumPy array;
* ``.json`` — ``{"matrix": [[...]], "name": ...}`` or a bare list of lists;
* text — rows of numbers separated by whitespace, commas, tabs or semicolons;
  ``#`` starts a comment; an optional first line holding only K (as in common
  dueling-bandit simulator formats) is checked against the number of rows.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import numpy as np

from .errors import InvalidMatrixError, MatrixFileError
from .matrix import PreferenceMatrix

__all__ = ["read_matrix", "parse_text"]

_MAX_BYTES = 256 * 1024 * 1024
_SPLIT = re.compile(r"[\s,;]+")


def parse_text(text: str, origin: str = "<text>") -> list[list[float]]:
    """Parse the text format into rows of floats.

    Raises
    ------
    MatrixFileError
        Empty content, a non-numeric cell (with line and column), or a K header
        that does not match the rows.
    """
    rows: list[list[float]] = []
    lines: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        cells = [c for c in _SPLIT.split(line) if c]
        row = []
        for col, cell in enumerate(cells, start=1):
            try:
                row.append(float(cell))
            except ValueError:
                raise MatrixFileError(
                    f"{origin}: line {lineno}, column {col}: {cell!r} is not a number"
                ) from None
        rows.append(row)
        lines.append(lineno)
    if not rows:
        raise MatrixFileError(f"{origin}: no matrix rows found (empty file or only comments)")
    # Optional header: a single integer K followed by K rows.
    if len(rows[0]) == 1 and len(rows) > 1 and float(rows[0][0]).is_integer():
        k = int(rows[0][0])
        if k != len(rows) - 1:
            raise MatrixFileError(
                f"{origin}: header line {lines[0]} says K = {k} but {len(rows) - 1} rows follow")
        rows = rows[1:]
        lines = lines[1:]
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        want = len(rows[0])
        bad = next(n for n, r in zip(lines, rows) if len(r) != want)
        raise MatrixFileError(
            f"{origin}: ragged rows: line {bad} has a different number of entries than "
            f"line {lines[0]} ({want})")
    return rows


def _load_json(text: str, origin: str) -> tuple[Any, str | None]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MatrixFileError(f"{origin}: invalid JSON ({exc.msg}, line {exc.lineno})") from None
    if isinstance(data, dict):
        if "matrix" not in data:
            raise MatrixFileError(f"{origin}: JSON object has no 'matrix' key")
        return data["matrix"], data.get("name")
    if isinstance(data, list):
        return data, None
    raise MatrixFileError(f"{origin}: JSON must be an object with 'matrix' or a list of lists")


def read_matrix(path: str | os.PathLike[str], *, name: str | None = None,
                **kwargs: Any) -> PreferenceMatrix:
    """Read and validate a preference matrix file.

    Parameters
    ----------
    path : path-like
        ``.npy``, ``.json`` or a text file (see module docstring).
    name : str, optional
        Label; defaults to the JSON ``name`` field or the file's stem.
    **kwargs
        Passed to :class:`PreferenceMatrix` (``break_ties``, ``atol``).

    Raises
    ------
    MatrixFileError
        Missing, unreadable, binary or malformed file.
    InvalidMatrixError
        The numbers do not form a valid preference matrix.
    """
    path = os.fspath(path)
    origin = os.path.basename(path) or path
    stem = os.path.splitext(origin)[0]
    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise MatrixFileError(f"{path}: is a directory, not a matrix file")
        if size > _MAX_BYTES:
            raise MatrixFileError(f"{path}: file too large ({size} bytes)")
        if path.endswith(".npy"):
            try:
                # memory-map first so a huge array is refused before it is read
                values: Any = np.load(path, allow_pickle=False, mmap_mode="r")
            except (ValueError, OSError) as exc:
                raise MatrixFileError(f"{path}: not a readable .npy array ({exc})") from None
            label = None
        else:
            with open(path, "rb") as fh:
                blob = fh.read()
            try:
                text = blob.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise MatrixFileError(f"{path}: not a text file (not UTF-8)") from None
            if "\x00" in text:
                raise MatrixFileError(f"{path}: binary content in a text matrix file")
            stripped = text.lstrip()
            if path.endswith(".json") or stripped.startswith(("{", "[")):
                values, label = _load_json(text, origin)
            else:
                values, label = parse_text(text, origin), None
    except FileNotFoundError:
        raise MatrixFileError(f"{path}: no such file") from None
    except PermissionError:
        raise MatrixFileError(f"{path}: permission denied") from None
    except IsADirectoryError:
        raise MatrixFileError(f"{path}: is a directory, not a matrix file") from None
    try:
        return PreferenceMatrix(values, name=name or label or stem, source=path, **kwargs)
    except InvalidMatrixError as exc:
        exc.args = (f"{origin}: {exc}",)
        raise
