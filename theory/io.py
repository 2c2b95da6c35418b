"""Reading and writing preference matrices (and other K×K tables) as files.

Formats (picked from the extension, then from the content); the full rules, with what is
refused and why, are in ``docs/theory.md`` ("Data formats"):

* text (``.txt``, ``.csv``, ``.tsv``, anything else) — rows of plain ASCII decimal numbers
  separated by tabs, commas, semicolons or whitespace (one delimiter per file: tab for ``.tsv``,
  comma for a ``.csv`` with commas, else tab if any line has one, else comma, else semicolon,
  else whitespace; CSV quoting is honoured); ``#`` starts a
  comment; an optional first line holding only K is checked against the rows.  Arm names may
  be given as a header row and/or a first column (cells that are not numbers); when both are
  given they must agree, and the top-left corner cell (blank or a label) is ignored;
* ``.npy`` — a 2-D array of integers or floats; arm names and the matrix name live in a JSON
  sidecar ``STEM.arms.json`` next to it (written by :func:`write_matrix`, read when present);
* JSON (``.json`` or content starting with ``{``/``[``) — a bare list of rows, or an object
  ``{"matrix": [[...]], "name": ..., "arms": [...]}`` (also every key of
  :meth:`PreferenceMatrix.to_dict`); unknown keys are refused, never dropped.

Every reader checks the file before reading it (regular files only, size caps
:data:`MAX_TEXT_BYTES` and :data:`MAX_NPY_BYTES`) and raises only
:class:`~duelbound.theory.errors.DuelboundError` subclasses, each with one readable line.
"""

from __future__ import annotations

import csv
import errno
import json
import math
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import numpy as np

from .errors import DuelboundError, InvalidMatrixError, MatrixFileError
from .matrix import MAX_K, PreferenceMatrix

__all__ = [
    "read_matrix", "write_matrix", "read_table", "parse_text", "ParsedTable", "sidecar_path",
    "MAX_TEXT_BYTES", "MAX_NPY_BYTES", "MAX_INT_DIGITS",
]

#: Largest text or JSON file read (bytes); larger files are refused before reading.
MAX_TEXT_BYTES = 256 * 1024 * 1024
#: Largest ``.npy`` file read: a K = 10 000 float64 matrix (800 MB) plus its header.
MAX_NPY_BYTES = MAX_K * MAX_K * 8 + 64 * 1024
#: Longest JSON integer accepted (in digits): every accepted integer is below 1e308,
#: so it converts to a finite float, and Python's 4300-digit conversion limit is never hit.
MAX_INT_DIGITS = 308

# Plain ASCII decimal or scientific numbers; nan/inf are read only to be reported as non-finite.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NONFINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)
_ROW = re.compile(r"(?:{0})(?: (?:{0}))*".format(
    rf"{_NUMBER.pattern}|{_NONFINITE.pattern}"), re.ASCII | re.IGNORECASE)  # a row, " "-joined
_NPY_MAGIC = b"\x93NUMPY"
_NPY_KINDS = "iuf"  # signed/unsigned integers and floats
_KIND_NAMES = {"b": "boolean", "c": "complex", "O": "object", "U": "string", "S": "bytes",
               "V": "structured", "M": "datetime", "m": "timedelta"}

# JSON keys of a matrix object: the grid, and metadata that is read back (never dropped).
MATRIX_JSON_KEYS = frozenset({"matrix", "name", "arms", "K", "tie_epsilon", "broken_ties",
                              "sha256"})
_SIDECAR_KEYS = frozenset({"name", "arms"})


def short(value: Any, limit: int = 40) -> str:
    """A bounded, one-line rendering of a value from a file, for error messages."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("..." if len(value) > limit else "")
    if isinstance(value, (bool, int, float)) or value is None:
        text = repr(value)
        return text if len(text) <= limit else text[:limit] + "..."
    return f"a JSON {type(value).__name__}"


def is_number(cell: str) -> bool:
    """True for a plain ASCII decimal/scientific number, ``nan`` or ``inf`` (any sign/case)."""
    return bool(_NUMBER.fullmatch(cell) or _NONFINITE.fullmatch(cell))


@dataclass(frozen=True)
class ParsedTable:
    """A K×K table read from a file, before it is interpreted (probabilities or counts).

    Attributes
    ----------
    values : numpy.ndarray
        The numbers: float64 for text and JSON; the stored integer or float dtype for ``.npy``.
    arms : tuple of str or None
        Arm names found in the file (header row/column, JSON ``"arms"``, ``.npy`` sidecar).
    name : str or None
        The name stored in the file (JSON ``"name"``, sidecar), else None.
    meta : dict
        Other recognised JSON keys (``K``, ``sha256``, ``tie_epsilon``, ...), for the caller
        to check.
    origin : str
        The file's base name, the prefix of every error message.
    path : str
        The path as given.
    """

    values: np.ndarray
    arms: tuple[str, ...] | None
    name: str | None
    origin: str
    path: str
    meta: dict[str, Any] = field(default_factory=dict)
    #: The numbers' decimal text (K×K), for exact reading (``PreferenceMatrix.written``).
    written: list[list[str]] | None = None

    @property
    def stem(self) -> str:
        """The file name without its extension (the default matrix name)."""
        return os.path.splitext(self.origin)[0]


# -- opening files safely ---------------------------------------------------------------------
def _os_error(path: str, exc: OSError) -> MatrixFileError:
    reasons = {errno.ENOENT: "no such file", errno.EACCES: "permission denied",
               errno.EPERM: "permission denied", errno.EISDIR: "is a directory, not a file",
               errno.ELOOP: "too many levels of symbolic links (a symlink loop?)",
               errno.ENAMETOOLONG: "file name too long", errno.ENOTDIR: "no such file",
               errno.ENXIO: "not a regular file (a socket or device)"}
    reason = reasons.get(exc.errno or 0, f"cannot read ({exc.strerror or exc})")
    return MatrixFileError(f"{path}: {reason}")


def open_regular(path: str, cap: int | None = None) -> BinaryIO:
    """Open ``path`` for reading after checking it is a regular file of at most ``cap`` bytes
    (any size when ``cap`` is None: the caller streams it).

    The file is opened non-blocking (a FIFO does not hang) and checked with ``fstat`` on the
    open descriptor, so a device, FIFO or socket is refused before a byte is read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _os_error(path, exc) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise MatrixFileError(f"{path}: is a directory, not a matrix file")
        if not stat.S_ISREG(st.st_mode):
            raise MatrixFileError(f"{path}: not a regular file (a device, FIFO or socket); "
                                  "only regular files are read")
        if cap is not None and st.st_size > cap:
            raise MatrixFileError(f"{path}: file too large ({st.st_size} bytes; the limit "
                                  f"for this format is {cap} bytes)")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_bytes(path: str, cap: int) -> bytes:
    with open_regular(path, cap) as fh:
        try:
            blob = fh.read(cap + 1)
        except OSError as exc:
            raise _os_error(path, exc) from None
    if len(blob) > cap:  # the file grew after it was checked
        raise MatrixFileError(f"{path}: file too large (more than {cap} bytes)")
    return blob


def read_text_file(path: str) -> str:
    """The content of a UTF-8 text file (BOM removed), refusing binary content."""
    blob = _read_bytes(path, MAX_TEXT_BYTES)
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MatrixFileError(f"{path}: not a text file (not UTF-8)") from None
    if "\x00" in text:
        raise MatrixFileError(f"{path}: binary content in a text file")
    return text


# -- text -------------------------------------------------------------------------------------
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+(?:[eE][-+]?\d+)?")


def _delimiter(lines: Sequence[str]) -> str | None:
    if any(";" in line for line in lines) and any(
            _DECIMAL_COMMA.search(line) for line in lines):
        return ";"  # Excel in a decimal-comma locale: "0,5;0,7" (the commas are decimals)
    for delim in ("\t", ",", ";"):
        if any(delim in line for line in lines):
            return delim
    return None


def _split(line: str, delim: str | None) -> list[str]:
    if delim is None:
        return line.split()
    try:
        cells = [c.strip() for c in next(csv.reader([line], delimiter=delim,
                                                    skipinitialspace=True))]
    except csv.Error as exc:  # e.g. a field over csv's 128 KiB limit after a stray quote
        raise MatrixFileError(f"unreadable CSV line ({exc}; an unbalanced quote?)") from None
    while cells and not cells[-1]:  # a trailing delimiter is not a cell
        cells.pop()
    if delim == ";":  # decimal commas ("0,5") read as decimal points
        cells = [c.replace(",", ".") if _DECIMAL_COMMA.fullmatch(c) else c for c in cells]
    return cells


_NAMES_HINT = {
    "column": "; a first column of arm names needs a name (not a number) on every row",
    "row": "; a header row of arm names must hold no numbers",
}


def _cell_error(origin: str, lineno: int, col: int, cell: str, hint: str = ""
                ) -> MatrixFileError:
    if not cell:
        return MatrixFileError(f"{origin}: line {lineno}, column {col}: empty cell")
    return MatrixFileError(
        f"{origin}: line {lineno}, column {col}: {short(cell)} is not a number (plain ASCII "
        f"decimal or scientific notation only, e.g. 0.7 or 7e-1){hint}")


def parse_table_text(text: str, origin: str = "<text>", delimiter: str | None = None,
                     ) -> tuple[list[list[float]], tuple[str, ...] | None]:
    """Parse the text format into rows of floats and optional arm names.

    See :func:`parse_table_cells` (which also returns the cells' text).
    """
    data, names, _ = parse_table_cells(text, origin, delimiter)
    return data, names


_TOKEN = re.compile(r"\S+")
_MAX_QUOTED_LINE = 4 << 20  # 10 000 quoted names of 400 characters


def _check_widths(raw: Sequence[tuple[int, str]], delim: str | None, origin: str) -> None:
    """Refuse a line with more cells than a square table of these rows can have (K cells and
    a name, K ≤ rows) before splitting it: one 20 MB line split into cells took 5.5 GB."""
    most = len(raw) + 1
    for n, line in raw:
        if len(line) <= 2 * most:  # a cell and its separator take >= 2 characters
            continue
        if delim and '"' in line:  # quoted names may hold the delimiter: bound the length
            if len(line) > _MAX_QUOTED_LINE:
                raise MatrixFileError(f"{origin}: line {n} is {len(line)} characters long "
                                      f"(more than {_MAX_QUOTED_LINE} with quotes)")
            continue
        cells = line.count(delim) + 1 if delim else sum(1 for _ in _TOKEN.finditer(line))
        if cells > most:
            raise MatrixFileError(f"{origin}: line {n} has {cells} cells, but a square table "
                                  f"of {len(raw)} lines has at most {most} per line")


def parse_table_cells(text: str, origin: str = "<text>", delimiter: str | None = None,
                      ) -> tuple[list[list[float]], tuple[str, ...] | None, list[list[str]]]:
    """Parse the text format into rows of floats, optional arm names and the cells' text.

    ``delimiter`` fixes the cell delimiter (``read_table`` passes tab for ``.tsv`` and comma for
    a ``.csv`` that has commas); by default it is detected: tab if any line has one, else comma,
    else semicolon, else whitespace.

    Returns
    -------
    rows : list of list of float
    arms : tuple of str or None
        From the header row and/or the first column (they must agree).
    cells : list of list of str
        The numbers as written (for exact rational reading).

    Raises
    ------
    MatrixFileError
        Empty content, a cell that is not a plain number (with line and column), ragged rows,
        a K header that does not match, header and first-column names that disagree.
    """
    raw = [(n, line.split("#", 1)[0].strip()) for n, line in enumerate(text.splitlines(), 1)]
    raw = [(n, line) for n, line in raw if line]
    if not raw:
        raise MatrixFileError(f"{origin}: no matrix rows found (empty file or only comments)")
    delim = delimiter or _delimiter([line for _, line in raw])
    _check_widths(raw, delim, origin)
    try:
        rows = [(n, _split(line, delim)) for n, line in raw]
    except MatrixFileError as exc:
        raise MatrixFileError(f"{origin}: {exc}") from None
    rows = [(n, cells) for n, cells in rows if cells]
    if not rows:
        raise MatrixFileError(f"{origin}: no matrix rows found (empty file or only comments)")
    k_header: tuple[int, int] | None = None
    first = rows[0][1]
    if len(first) == 1 and len(rows) > 1 and _NUMBER.fullmatch(first[0]) \
            and float(first[0]).is_integer():
        k_header = (rows[0][0], int(float(first[0])))
        rows = rows[1:]
    header: list[str] | None = None
    hline = rows[0][0]
    first = rows[0][1]
    if len(first) >= 2 and not any(is_number(c) for c in first):
        header = first
        rows = rows[1:]
    if not rows:
        raise MatrixFileError(f"{origin}: a header of names but no matrix rows")
    named = [not is_number(cells[0]) for _, cells in rows]
    row_names: list[str] | None = None
    if all(named):
        row_names = [cells[0] for _, cells in rows]
        rows = [(n, cells[1:]) for n, cells in rows]
    offset = 2 if row_names is not None else 1
    data: list[list[float]] = []
    for k, (lineno, cells) in enumerate(rows):
        if not _ROW.fullmatch(" ".join(cells)):  # one regex per row; find the culprit if not
            for col, cell in enumerate(cells, start=offset):
                if not is_number(cell):
                    hint = _NAMES_HINT["column"] if col == 1 else \
                        _NAMES_HINT["row"] if k == 0 and header is None else ""
                    raise _cell_error(origin, lineno, col, cell, hint)
        try:
            data.append(list(map(float, cells)))
        except ValueError:  # a cell the row regex let through, e.g. "0.7 0.6" in a CSV
            col, cell = next((c, x) for c, x in enumerate(cells, start=offset)
                             if not _NUMBER.fullmatch(x))
            raise _cell_error(origin, lineno, col, cell,
                              " (two numbers in one cell? check the separator)") from None
    width = len(data[0])
    for (lineno, _), row in zip(rows, data):
        if len(row) != width:
            raise MatrixFileError(
                f"{origin}: ragged rows: line {lineno} has {len(row)} entries, line "
                f"{rows[0][0]} has {width}")
    if k_header is not None and k_header[1] != len(data):
        raise MatrixFileError(f"{origin}: header line {k_header[0]} says K = {k_header[1]} "
                              f"but {len(data)} rows follow")
    col_names: list[str] | None = None
    if header is not None:
        if len(header) == width + 1 and (row_names is not None or not header[0]):
            header = header[1:]  # the corner cell: blank, or a label of the names column
        if len(header) != width:
            raise MatrixFileError(
                f"{origin}: line {hline}: the header has {len(header)} names but the rows "
                f"have {width} numbers")
        col_names = header
    if row_names is not None and col_names is not None and row_names != col_names:
        i = next(i for i, (a, b) in enumerate(zip(row_names, col_names)) if a != b) \
            if len(row_names) == len(col_names) else min(len(row_names), len(col_names))
        a = row_names[i] if i < len(row_names) else "(none)"
        b = col_names[i] if i < len(col_names) else "(none)"
        raise MatrixFileError(
            f"{origin}: row names and column names disagree: row {i} is {short(a)} but column "
            f"{i} is {short(b)} (they must list the arms in the same order)")
    names = row_names if row_names is not None else col_names
    return data, (tuple(names) if names is not None else None), [c for _, c in rows]


def parse_text(text: str, origin: str = "<text>") -> list[list[float]]:
    """Parse the text format into rows of floats (arm names, if any, are dropped).

    Use :func:`parse_table_text` to get the names as well.
    """
    return parse_table_text(text, origin)[0]


# -- JSON -------------------------------------------------------------------------------------
def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise MatrixFileError(f"a JSON integer with {digits} digits is too large (at most "
                              f"{MAX_INT_DIGITS} digits are accepted)")
    return int(text)


class _Written(float):
    """A JSON number that remembers its decimal text (read exactly by certificates)."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> _Written:
        out = super().__new__(cls, text)
        out.text = text
        return out


def _written_grid(grid: Any) -> list[list[str]] | None:
    """The decimal text of a JSON grid already checked by :func:`json_grid`."""
    try:
        return [[getattr(v, "text", None) or repr(v) for v in row] for row in grid]
    except TypeError:
        return None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are unique (json.loads keeps the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise MatrixFileError(f"the key {key!r} appears twice in one JSON object (which "
                                  "one is meant?)")
        out[key] = value
    return out


def _parse_constant(text: str) -> float:
    return float(text)  # NaN / Infinity: kept, so that validation reports them as non-finite


def load_json(text: str, origin: str) -> Any:
    """``json.loads`` with every failure turned into a one-line :class:`MatrixFileError`."""
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant,
                          parse_float=_Written, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise MatrixFileError(f"{origin}: invalid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise MatrixFileError(f"{origin}: JSON nested too deeply") from None
    except MatrixFileError as exc:
        raise MatrixFileError(f"{origin}: {exc}") from None
    except ValueError as exc:  # any other conversion limit
        raise MatrixFileError(f"{origin}: unreadable JSON number ({exc})") from None


def json_number(value: Any, where: str) -> float:
    """A JSON number as a float; booleans, strings, null and containers are refused."""
    if isinstance(value, bool):
        raise MatrixFileError(f"{where}: JSON {str(value).lower()} is not a number")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        raise MatrixFileError(f"{where}: the string {short(value)} is not a number (write "
                              "JSON numbers, not strings)")
    if value is None:
        raise MatrixFileError(f"{where}: null is not a number")
    raise MatrixFileError(f"{where}: a JSON {type(value).__name__} is not a number")


def json_grid(data: Any, origin: str, key: str = "matrix") -> np.ndarray:
    """A JSON list of rows of numbers as a float64 array (no recursion: depth is 2)."""
    if not isinstance(data, list):
        raise MatrixFileError(f"{origin}: {key!r} must be a list of rows of numbers")
    if not data:
        raise InvalidMatrixError(f"{origin}: {key!r} is empty", "empty")
    if len(data) > MAX_K:
        raise InvalidMatrixError(f"{origin}: K = {len(data)} exceeds the supported maximum "
                                 f"{MAX_K}", "too-large")
    width = None
    out: list[list[float]] = []
    for i, row in enumerate(data):
        if not isinstance(row, list):
            raise MatrixFileError(f"{origin}: {key!r} must be a list of rows (lists); row {i} "
                                  f"is a JSON {type(row).__name__}")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise MatrixFileError(f"{origin}: ragged rows: row {i} has {len(row)} entries, "
                                  f"row 0 has {width}")
        cells = []
        for j, v in enumerate(row):
            if isinstance(v, list):
                raise InvalidMatrixError(f"{origin}: {key!r} must be 2-dimensional (a list "
                                         f"of rows of numbers); entry ({i},{j}) is a list",
                                         "not-square")
            cells.append(json_number(v, f"{origin}: entry ({i},{j})"))
        out.append(cells)
    return np.array(out, dtype=np.float64).reshape(len(out), width or 0)


def _json_table(data: Any, origin: str, path: str, grid_keys: Sequence[str],
                meta_keys: frozenset[str]) -> ParsedTable:
    if isinstance(data, list):
        return ParsedTable(json_grid(data, origin), None, None, origin, path,
                           written=_written_grid(data))
    if not isinstance(data, dict):
        raise MatrixFileError(f"{origin}: JSON must be an object with {grid_keys[0]!r} or a "
                              "list of lists")
    allowed = meta_keys | set(grid_keys)
    unknown = ", ".join(map(repr, sorted(set(data) - allowed)))
    present = [k for k in grid_keys if k in data]
    if not present:
        raise MatrixFileError(f"{origin}: JSON object has no {' or '.join(map(repr, grid_keys))}"
                              f" key" + (f" (unknown keys: {unknown})" if unknown else ""))
    if unknown:
        raise MatrixFileError(f"{origin}: unknown JSON key(s) {unknown}; accepted: "
                              f"{', '.join(sorted(allowed))}")
    if len(present) > 1:
        raise MatrixFileError(f"{origin}: give one of {' or '.join(map(repr, present))}, "
                              "not both")
    values = json_grid(data[present[0]], origin, present[0])
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise MatrixFileError(f"{origin}: 'name' must be a string, got {short(name)}")
    arms = _json_arms(data.get("arms"), origin)
    meta = {k: v for k, v in data.items() if k not in ("name", "arms", present[0])}
    if "K" in meta and (isinstance(meta["K"], bool) or meta["K"] != values.shape[0]):
        raise MatrixFileError(f"{origin}: 'K' is {short(meta['K'])} but the matrix has "
                              f"{values.shape[0]} rows")
    return ParsedTable(values, arms, name, origin, path, meta,
                       written=_written_grid(data[present[0]]))


def _json_arms(arms: Any, origin: str) -> tuple[str, ...] | None:
    if arms is None:
        return None
    if not isinstance(arms, list) or not all(isinstance(a, str) for a in arms):
        raise MatrixFileError(f"{origin}: 'arms' must be a list of strings (arm names)")
    return tuple(arms)


# -- .npy -------------------------------------------------------------------------------------
def sidecar_path(path: str | os.PathLike[str]) -> str:
    """The JSON sidecar holding the arm names (and name) of a ``.npy`` file: ``STEM.arms.json``."""
    path = os.fspath(path)
    return os.path.splitext(path)[0] + ".arms.json"


def _read_npy(path: str, origin: str) -> ParsedTable:
    with open_regular(path, MAX_NPY_BYTES) as fh:
        try:
            if fh.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                raise MatrixFileError(f"{path}: not a .npy file (no NumPy magic)")
            fh.seek(0)
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
            else:
                raise MatrixFileError(f"{path}: unsupported .npy version {version}")
        except MatrixFileError:
            raise
        except (ValueError, OSError, EOFError) as exc:
            raise MatrixFileError(f"{path}: not a readable .npy array ({exc})") from None
        if dtype.kind not in _NPY_KINDS:
            kind = _KIND_NAMES.get(dtype.kind, dtype.kind)
            shown = str(dtype) if str(dtype) == kind else f"{dtype} ({kind})"
            raise MatrixFileError(f"{path}: .npy dtype {shown} refused; entries must be "
                                  "integers or real floats")
        if math.prod(shape) == 0:
            raise MatrixFileError(f"{path}: empty .npy array (shape {tuple(shape)})")
        if len(shape) != 2:
            raise InvalidMatrixError(f"{origin}: a matrix must be 2-dimensional, got shape "
                                     f"{tuple(shape)}", "not-square")
        if max(shape) > MAX_K:
            raise InvalidMatrixError(f"{origin}: K = {max(shape)} exceeds the supported "
                                     f"maximum {MAX_K}", "too-large")
        need = math.prod(shape) * dtype.itemsize
        if fh.tell() + need > os.fstat(fh.fileno()).st_size:  # refuse before allocating
            raise MatrixFileError(f"{path}: truncated .npy file (the header promises {need} "
                                  "bytes of data)")
        fh.seek(0)
        try:
            values = np.lib.format.read_array(fh, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise MatrixFileError(f"{path}: not a readable .npy array ({exc})") from None
    arms, name = None, None
    side = sidecar_path(path)
    if os.path.lexists(side):
        data = load_json(read_text_file(side), os.path.basename(side))
        if not isinstance(data, dict) or set(data) - _SIDECAR_KEYS:
            raise MatrixFileError(f"{side}: a .npy sidecar must be a JSON object with keys "
                                  "'arms' and/or 'name'")
        arms = _json_arms(data.get("arms"), os.path.basename(side))
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise MatrixFileError(f"{side}: 'name' must be a string")
    return ParsedTable(np.asarray(values), arms, name, origin, path)


# -- dispatch ---------------------------------------------------------------------------------
def read_table(path: str | os.PathLike[str], *, grid_keys: Sequence[str] = ("matrix",),
               meta_keys: frozenset[str] = MATRIX_JSON_KEYS) -> ParsedTable:
    """Read a K×K table of numbers with optional arm names from any supported format.

    Parameters
    ----------
    path : path-like
        ``.npy``, ``.json`` or a text file (see the module docstring).
    grid_keys : sequence of str
        JSON keys that may hold the grid (exactly one must be present).
    meta_keys : frozenset of str
        Other JSON keys accepted (returned in :attr:`ParsedTable.meta`); any other key is refused.

    Raises
    ------
    MatrixFileError
        Missing, unreadable, non-regular, too large, binary or malformed file.
    InvalidMatrixError
        A grid that is empty, not 2-D or too large.
    """
    path = os.fspath(path)
    origin = os.path.basename(path) or path
    if path.endswith(".npy"):
        return _read_npy(path, origin)
    text = read_text_file(path)
    if path.endswith(".json") or text.lstrip().startswith(("{", "[")):
        return _json_table(load_json(text, origin), origin, path, grid_keys, meta_keys)
    ext = os.path.splitext(path)[1].lower()
    excel_decimal = ";" in text and _DECIMAL_COMMA.search(text) is not None
    delim = "\t" if ext == ".tsv" else \
        "," if ext == ".csv" and "," in text and not excel_decimal else None
    rows, arms, cells = parse_table_cells(text, origin, delim)
    return ParsedTable(np.array(rows, dtype=np.float64), arms, None, origin, path,
                       written=cells)


def _prefixed(exc: DuelboundError, origin: str) -> DuelboundError:
    if not str(exc).startswith(origin):
        exc.args = (f"{origin}: {exc}",)
    return exc


def read_matrix(path: str | os.PathLike[str], *, name: str | None = None,
                **kwargs: Any) -> PreferenceMatrix:
    """Read and validate a preference matrix file.

    Parameters
    ----------
    path : path-like
        ``.npy``, ``.json`` or a text file (see the module docstring).
    name : str, optional
        Label; defaults to the name stored in the file (JSON ``name``, ``.npy`` sidecar) or
        the file's stem.
    **kwargs
        Passed to :class:`PreferenceMatrix` (``break_ties``, ``atol``).

    Raises
    ------
    MatrixFileError
        Missing, unreadable, binary or malformed file.
    InvalidMatrixError
        The numbers do not form a valid preference matrix (the message suggests dividing by
        100 for percentages and ``--counts`` for win counts).
    """
    table = read_table(path)
    try:
        M = PreferenceMatrix(table.values, name=name or table.name or table.stem,
                             arms=table.arms, source=table.path, **kwargs)
    except InvalidMatrixError as exc:
        raise _prefixed(exc, table.origin) from None
    _apply_json_meta(M, table)
    if table.written is not None:
        M.with_written(table.written)
    return M


def _apply_json_meta(M: PreferenceMatrix, table: ParsedTable) -> None:
    """Check ``sha256`` and restore broken-tie records of a :meth:`to_dict` file."""
    meta = table.meta
    broken = meta.get("broken_ties")
    if broken:
        try:
            pairs = tuple((int(i), int(j)) for i, j in broken)
        except (TypeError, ValueError):
            raise MatrixFileError(f"{table.origin}: 'broken_ties' must be a list of index "
                                  "pairs") from None
        eps = meta.get("tie_epsilon")
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 0.5:
            raise MatrixFileError(f"{table.origin}: 'broken_ties' needs 'tie_epsilon' in "
                                  "(0, 1/2)")
        V = M.values
        for i, j in pairs:  # the record must describe the values, not just be well-formed
            if not (0 <= i < j < M.K) or V[i, j] != 0.5 + float(eps):
                raise MatrixFileError(
                    f"{table.origin}: 'broken_ties' lists ({i}, {j}) but mu there is not "
                    f"1/2 + tie_epsilon = {0.5 + float(eps)!r} (pairs i < j < K, as written by "
                    "'to_dict')")
        M.broken_ties, M.tie_epsilon = pairs, float(eps)
    digest = meta.get("sha256")
    if digest is not None and digest != M.content_hash():
        raise MatrixFileError(f"{table.origin}: 'sha256' does not match the matrix (edited "
                              "after it was written?); remove the key to accept the values")


# -- writing ----------------------------------------------------------------------------------
def _text_kind(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    return {".json": "json", ".npy": "npy", ".csv": "csv", ".tsv": "tsv"}.get(ext, "text")


def _check_text_names(arms: Sequence[str], kind: str, path: str) -> None:
    for a in arms:
        if is_number(a) or "#" in a or '"' in a or not a.replace(" ", "").isprintable() \
                or (kind == "text" and any(c.isspace() or c in ",;" for c in a)):
            raise DuelboundError(
                f"{path}: arm name {short(a)} cannot be stored in a {kind} file (names must not be "
                "numbers or contain '#', quotes, control characters or line breaks"
                + (", spaces, commas or semicolons" if kind == "text" else "")
                + "); write .json instead")


def write_table(values: np.ndarray, path: str | os.PathLike[str], *,
                arms: Sequence[str] | None = None, name: str | None = None,
                json_data: dict[str, Any] | None = None) -> str:
    """Write a K×K table (with optional arm names) in the format given by the extension.

    ``.json`` writes ``json_data`` (which must hold the grid); ``.npy`` writes the array and, if
    there are names or a name, the sidecar ``STEM.arms.json``; ``.csv``/``.tsv`` write a
    header row and a first column of names (blank corner); any other extension writes
    whitespace-separated text.  Floats are written with ``repr`` so they read back exactly.

    Returns
    -------
    str
        The path written.
    """
    path = os.fspath(path)
    kind = _text_kind(path)
    try:
        if kind == "json":
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(json_data, fh, indent=1)
                fh.write("\n")
        elif kind == "npy":
            np.save(path, np.asarray(values), allow_pickle=False)
            side = sidecar_path(path)
            if arms is not None or name is not None:
                with open(side, "w", encoding="utf-8") as fh:
                    json.dump({"name": name, "arms": list(arms) if arms else None}, fh)
                    fh.write("\n")
            elif os.path.lexists(side):  # a stale sidecar would name the new array's arms
                os.remove(side)
        else:
            if arms is not None:
                _check_text_names(arms, kind, path)
            cells = [[_fmt(v) for v in row] for row in np.asarray(values).tolist()]
            if arms is not None:
                corner = [""] if kind != "text" else []
                cells = [corner + list(arms)] + [[a, *row] for a, row in zip(arms, cells)]
            with open(path, "w", encoding="utf-8", newline="") as fh:
                if kind == "text":
                    fh.write("".join(" ".join(row) + "\n" for row in cells))
                else:
                    csv.writer(fh, delimiter="," if kind == "csv" else "\t",
                               lineterminator="\n").writerows(cells)
    except OSError as exc:
        raise DuelboundError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _fmt(v: Any) -> str:
    return str(v) if isinstance(v, int) else repr(float(v))


def write_matrix(M: PreferenceMatrix, path: str | os.PathLike[str]) -> str:
    """Write a preference matrix so that :func:`read_matrix` reads back the same matrix.

    Arm names survive every format: text/CSV/TSV carry them as a header row and first column,
    JSON as ``"arms"`` (with the name, and broken-tie records), ``.npy`` in the sidecar
    ``STEM.arms.json``.  Names that cannot be stored in a text format (numbers, ``#``, quotes,
    spaces in whitespace text) are refused with a message suggesting ``.json``.

    Returns
    -------
    str
        The path written.
    """
    return write_table(M.values, path, arms=M.arms, name=M.name, json_data=M.to_dict())
