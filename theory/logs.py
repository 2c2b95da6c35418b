"""Comparison logs: one duel (or ``count`` duels) per line, read into :class:`WinCounts`.

:func:`read_comparisons` reads a log with one comparison per line: CSV/TSV (or whitespace)
with a header row naming the columns ``winner,loser[,count]`` or
``arm_a,arm_b,outcome[,count]`` (or the LMSYS / Chatbot Arena export
``model_a,model_b,winner``), or JSON Lines with the same keys.  The decisions (draw
policies, arm order, self-comparisons, ignored columns) are listed in
:mod:`duelbound.theory.counts` and docs/theory.md, "Data formats".

The names here were in :mod:`duelbound.theory.counts` until 0.2 and are still importable
from there (it imports them from here).

Examples
--------
>>> import os, tempfile
>>> from duelbound.theory.logs import read_comparisons
>>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
>>> _ = open(path, "w").write("arm_a,arm_b,outcome\\nx,y,1\\nx,y,draw\\ny,x,y\\n")
>>> C = read_comparisons(path)
>>> C.arms, C.wins.tolist(), C.n_comparisons
(('x', 'y'), [[0.0, 1.5], [1.5, 0.0]], 3)
"""

from __future__ import annotations

import csv
import itertools
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .errors import DuelboundError, MatrixFileError
from .io import load_json, open_regular, short
from .matrix import MAX_K, check_arm_names
from .win_counts import MAX_COUNT, WinCounts

__all__ = ["read_comparisons", "WINNER_COLUMNS", "OUTCOME_COLUMNS", "LMSYS_COLUMNS",
           "DRAW_POLICIES", "DRAW_CODES", "MAX_LOG_LINE_BYTES", "PROGRESS_MIN_BYTES"]

#: Column names of the two log forms (case-insensitive; ``count`` is optional in both).
WINNER_COLUMNS = ("winner", "loser")
OUTCOME_COLUMNS = ("arm_a", "arm_b", "outcome")
#: The LMSYS / Chatbot Arena export: winner is "model_a", "model_b", "tie", "tie (bothbad)".
LMSYS_COLUMNS = ("model_a", "model_b", "winner")
#: What a draw counts as: ½ win to each arm, nothing, or an error.
DRAW_POLICIES = ("half", "drop", "refuse")
#: Outcomes read as a draw (case-insensitive).
DRAW_CODES = ("draw", "tie", "tie (bothbad)", "d", "0.5")

_DIGITS = re.compile(r"\d+", re.ASCII)
_A_CODES, _B_CODES = ("1", "a"), ("0", "b")


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
    tally = _Tally(origin, fixed, draw_policy)
    for row in rows:
        tally.add(row, form)
    if not tally.records:
        raise MatrixFileError(f"{origin}: no comparisons (only a header)")
    W, names, notes = tally.wins(fixed is None)
    if extra:
        notes.append(f"ignored column(s) {', '.join(sorted(extra))}")
    return WinCounts(W, arms=names, name=name or os.path.splitext(origin)[0],
                     notes=tuple(notes), source=path)


class _Tally:
    """Counts of a log as it is read: arms interned to indices as they appear, wins and
    draws keyed by index pairs (a dict of ints, not of name tuples: a 10⁷-row log holds one
    entry per distinct pair)."""

    def __init__(self, origin: str, fixed: tuple[str, ...] | None, draw_policy: str):
        self.origin, self.fixed, self.policy = origin, fixed, draw_policy
        self.index: dict[str, int] = {a: i for i, a in enumerate(fixed or ())}
        self.won: Counter[int] = Counter()    # key winner * MAX_K + loser
        self.drawn: Counter[int] = Counter()  # key min * MAX_K + max
        self.n_self = self.records = 0

    def arm(self, a: str, n: int) -> int:
        """The index of arm ``a`` (line ``n``), a new one on its first appearance."""
        i = self.index.get(a)
        if i is not None:
            return i
        if not a:
            raise MatrixFileError(f"{_at(self.origin, n)}: empty arm name")
        if self.fixed is not None:
            raise MatrixFileError(f"{_at(self.origin, n)}: arm {short(a)} is in the log but "
                                  "not one of the given arms")
        if len(self.index) >= MAX_K:
            raise MatrixFileError(f"{_at(self.origin, n)}: more than {MAX_K} arms (the "
                                  "maximum)")
        i = self.index[a] = len(self.index)
        return i

    def add(self, row: _Row, form: tuple[str, ...]) -> None:
        """Count one line: ``count`` wins, draws or self-comparisons."""
        n, a, b, outcome, count = row
        ia, ib = self.arm(a, n), self.arm(b, n)
        c = 1 if count is None else _count(count, self.origin, n)
        self.records += 1
        if len(form) == 3:
            won = _winner(a, b, outcome or "", self.origin, n, form == LMSYS_COLUMNS)
            if won is None:
                self.draw(ia, ib, c, outcome, n)
                return
            if won[0] != a:
                ia, ib = ib, ia
        if ia == ib:
            self.n_self += c
        else:
            self.won[ia * MAX_K + ib] += c

    def draw(self, ia: int, ib: int, c: int, outcome: str | None, n: int) -> None:
        if self.policy == "refuse":
            raise MatrixFileError(
                f"{_at(self.origin, n)}: a draw ({short(outcome)}); choose a draw policy: "
                "half (½ win to each arm, the Elo convention) or drop (CLI: --draw-policy)")
        if ia == ib:
            self.n_self += c
        else:
            self.drawn[min(ia, ib) * MAX_K + max(ia, ib)] += c

    def wins(self, numeric: bool) -> tuple[np.ndarray, tuple[str, ...], list[str]]:
        """(W, arm names, notes): arms in order of first appearance, or in numeric order
        when ``numeric`` allows it and every name is a decimal integer."""
        names = list(self.index)
        if len(names) < 2:
            raise MatrixFileError(f"{self.origin}: the log names {len(names)} arm(s); need "
                                  "at least 2")
        order = np.arange(len(names))
        if numeric and _numeric_order(names):
            order = np.array(sorted(order, key=lambda i: int(names[i])), dtype=np.int64)
        pos = np.empty(len(names), dtype=np.int64)
        pos[order] = np.arange(len(names))  # pos[first-appearance index] = row of W
        half = self.policy == "half"
        halves = half and any(c % 2 for c in self.drawn.values())
        W = np.zeros((len(names), len(names)), dtype=np.float64 if halves else np.int64)
        for key, c in self.won.items():
            w, l = divmod(key, MAX_K)
            if c > MAX_COUNT:
                raise MatrixFileError(f"{self.origin}: more than {MAX_COUNT} wins of "
                                      f"{short(names[w])} over {short(names[l])}")
            W[pos[w], pos[l]] = c
        notes = self._notes()
        if half:
            for key, c in self.drawn.items():
                ra, rb = (int(pos[i]) for i in divmod(key, MAX_K))
                W[ra, rb] += c / 2 if halves else c // 2
                W[rb, ra] += c / 2 if halves else c // 2
        return W, tuple(names[i] for i in order), notes

    def _notes(self) -> list[str]:
        notes: list[str] = []
        n_draws = sum(self.drawn.values())
        if n_draws and self.policy == "half":
            share = n_draws / (n_draws + sum(self.won.values()))
            notes.append(f"counted {n_draws} draw(s) as 1/2 win to each arm (draw policy "
                         f"'half'; {share:.1%} of the duels)")
        elif n_draws:
            notes.append(f"dropped {n_draws} draw(s) (draw policy 'drop')")
        if self.n_self:
            notes.append(f"ignored {self.n_self} self-comparison(s) (an arm against itself "
                         "carries no information)")
        return notes
