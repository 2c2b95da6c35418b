"""Helpers shared by the subcommands: matrix arguments and output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from typing import Any

from ..theory import datasets
from ..theory.counts import DRAW_POLICIES, WinCounts, read_comparisons, read_counts
from ..theory.errors import DuelboundError
from ..theory.io import read_matrix
from ..theory.matrix import PreferenceMatrix

#: Width of the lists in text outputs (the whole line stays under ~120 characters).
LIST_WIDTH = 100


def clip(items: list[str], sep: str = ", ", full: bool = False, width: int = LIST_WIDTH) -> str:
    """Join ``items`` up to ``width`` characters, then "… N more (--json / --full)".

    Whole items only, so a long arm name is never cut into something that looks like
    another arm.
    """
    if full:
        return sep.join(items)
    out: list[str] = []
    used = 0
    for k, item in enumerate(items):
        add = len(item) + (len(sep) if out else 0)
        if out and used + add > width:
            return sep.join(out) + f"{sep}… {len(items) - k} more (--json / --full)"
        out.append(item)
        used += add
    return sep.join(out)


def horizon(text: str) -> int:
    """argparse type for a horizon T: a positive integer, ``1e6`` notation accepted."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"T must be a positive integer (1e6 ok), got {text!r}")
    return int(value)


def add_matrix_arguments(parser: argparse.ArgumentParser, many: bool = False) -> None:
    """The matrix sources of a command, plus ``--break-ties`` and ``--name``.

    ``FILE`` (one, or several with ``many``), ``--example NAME``, ``--counts FILE`` (a K×K
    matrix of wins) and ``--comparisons FILE`` (a log of duels); with ``many`` every source is
    repeatable.  See :func:`load_matrices` and :func:`load_counts`.
    """
    extra = "; repeatable" if many else ""
    if many:
        parser.add_argument("files", nargs="*", metavar="FILE",
                            help="matrix files (text, CSV/TSV, .npy, .json)")
        parser.add_argument("--example", action="append", default=[], metavar="NAME",
                            help=f"bundled dataset (repeatable; 'duelbound datasets' lists them): "
                                 f"{', '.join(datasets.names())}")
    else:
        parser.add_argument("file", nargs="?", metavar="FILE",
                            help="matrix file (text, CSV/TSV, .npy, .json)")
        parser.add_argument("--example", metavar="NAME",
                            help=f"bundled dataset ('duelbound datasets' lists them): "
                                 f"{', '.join(datasets.names())}")
    parser.add_argument("--counts", metavar="FILE", action="append" if many else "store",
                        default=[] if many else None,
                        help="K×K matrix of win counts W_ij (times i beat j), any matrix format; "
                             f"the matrix is W_ij / (W_ij + W_ji){extra}")
    parser.add_argument("--comparisons", metavar="FILE", action="append" if many else "store",
                        default=[] if many else None,
                        help="comparison log, one duel per line: CSV/TSV with header "
                             "winner,loser[,count], arm_a,arm_b,outcome[,count] or the LMSYS "
                             f"export model_a,model_b,winner; or JSON Lines{extra}")
    parser.add_argument("--draw-policy", choices=DRAW_POLICIES, default="half",
                        help="draws in a --comparisons log (outcome draw/tie, LMSYS 'tie', "
                             "'tie (bothbad)'): 1/2 win to each arm (default, the Elo "
                             "convention), dropped, or an error")
    parser.add_argument("--name", metavar="NAME", default=None,
                        help="name of the matrix in the output (overrides the file's name)")
    parser.add_argument("--break-ties", type=float, metavar="EPS", default=None,
                        help="perturb exact ties mu_ij = 1/2 to 1/2 +- EPS (the lower index wins);"
                             " results then hold for the perturbed matrix")


def _listed(args: argparse.Namespace, attr: str) -> list[str]:
    value = getattr(args, attr, None)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _all_counts(args: argparse.Namespace) -> list[WinCounts]:
    """Every ``--counts`` and ``--comparisons`` source, read once and cached on ``args``."""
    cached = getattr(args, "_win_counts", None)
    if cached is None:
        cached = [read_counts(f) for f in _listed(args, "counts")]
        policy = getattr(args, "draw_policy", "half")
        cached += [read_comparisons(f, draw_policy=policy, progress=True)
                   for f in _listed(args, "comparisons")]
        for C in cached:
            for note in C.notes:
                sys.stderr.write(f"duelbound: note: {C.name}: {note}\n")
        args._win_counts = cached
    return cached


def undefined_counts(args: argparse.Namespace) -> list[WinCounts]:
    """The ``--counts`` / ``--comparisons`` sources whose estimate µ̂ has no tournament (a
    tied or never-compared pair), unless ``--break-ties`` perturbs the ties away."""
    from ..theory.posterior import undefined_pairs

    if getattr(args, "break_ties", None) is not None:
        return []
    return [C for C in _all_counts(args) if undefined_pairs(C.wins, limit=0)]


def load_counts(args: argparse.Namespace) -> WinCounts | None:
    """The raw win counts given by ``--counts FILE`` or ``--comparisons FILE``, or None.

    ``--name`` renames them.  Notes of the reader (ignored self-comparisons, extra log
    columns) go to stderr once.

    Raises
    ------
    DuelboundError
        More than one counts source given, or the file is unreadable or invalid.
    """
    found = _all_counts(args)
    if not found:
        return None
    if len(found) > 1:
        raise DuelboundError("give one --counts or --comparisons file, not several")
    C = found[0]
    name = getattr(args, "name", None)
    return replace(C, name=name) if name else C


def load_matrices(args: argparse.Namespace) -> list[PreferenceMatrix]:
    """The matrices named on the command line, validated: files, examples, counts, logs.

    Counts and logs become their estimated matrices µ̂_ij = W_ij / (W_ij + W_ji).  ``--name``
    renames the matrix (only one matrix may be given then).
    """
    files = _listed(args, "files") if hasattr(args, "files") else _listed(args, "file")
    names = _listed(args, "example")
    counts = _all_counts(args)
    if not files and not names and not counts:
        raise DuelboundError("give a matrix FILE, --example NAME, --counts FILE or "
                             "--comparisons FILE")
    bt = args.break_ties
    out = [read_matrix(f, break_ties=bt) for f in files]
    out += [datasets.load(n, break_ties=bt) for n in names]
    out += [C.matrix(break_ties=bt) for C in counts]
    rename = getattr(args, "name", None)
    if rename:
        if len(out) > 1:
            raise DuelboundError(f"--name needs exactly one matrix, got {len(out)}")
        out = [out[0].renamed(rename)]
    return out


def input_count(args: argparse.Namespace) -> int:
    """How many matrix sources the command line names (files, examples, counts, logs)."""
    files = _listed(args, "files") if hasattr(args, "files") else _listed(args, "file")
    return len(files) + len(_listed(args, "example")) + len(_listed(args, "counts")) \
        + len(_listed(args, "comparisons"))


def load_matrix(args: argparse.Namespace) -> PreferenceMatrix:
    """The single matrix named on the command line."""
    if input_count(args) > 1:
        raise DuelboundError("give one of a matrix FILE, --example NAME, --counts FILE or "
                             "--comparisons FILE, not several")
    return load_matrices(args)[0]


def write_json(data: Any, path: str | None = None, *, indent: int | None = 2) -> None:
    """JSON to ``path`` or stdout (``indent=None``: one line, C encoder — much faster
    for large nested lists such as K×K allocations)."""
    text = json.dumps(data, indent=indent, default=_json_default)
    if path in (None, "-"):
        sys.stdout.write(text + "\n")
    else:
        write_atomically(path, text + "\n")


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` all at once: a temporary file in the same folder, then
    a rename, so a reader (or a crash, or an interruption) never sees half a file and
    nothing is opened at ``path`` itself (a FIFO put there cannot block the writer)."""
    import os
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".duelbound-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        raise DuelboundError(f"cannot write {path}: {exc.strerror}") from None


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


#: File extensions matplotlib writes for ``--plot`` (``save_figure`` accepts the same).
PLOT_EXTENSIONS = ("png", "svg", "pdf")


def check_output_path(path: str | None, kinds: tuple[str, ...] | None = None,
                      option: str = "output") -> None:
    """Refuse an output path that cannot be written, before any computation starts.

    Parameters
    ----------
    path : str or None
        The path given on the command line; ``None`` (option not given) and ``"-"``
        (stdout) are accepted as they are.
    kinds : tuple of str, optional
        Accepted extensions without the dot (e.g. :data:`PLOT_EXTENSIONS`); ``None``
        accepts any name.
    option : str
        The option's name for the message, e.g. ``"--plot"``.

    Raises
    ------
    DuelboundError
        One line: the folder is missing or not writable, the path is a folder, a FIFO, a
        device or a socket, an existing file is read-only, or the extension is not one of
        ``kinds``.
    """
    import os
    import stat

    if path is None or path == "-":
        return
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if kinds is not None and ext not in kinds:
        raise DuelboundError(f"{option} {path}: unsupported extension "
                             f"(use {', '.join('.' + k for k in kinds)})")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise DuelboundError(f"{option} {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise DuelboundError(f"{option} {path}: is a folder, not a file")
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise DuelboundError(f"{option} {path}: is not a regular file (a FIFO, device or "
                             "socket): refused before any work starts")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise DuelboundError(f"{option} {path}: file is not writable")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise DuelboundError(f"{option} {path}: folder {folder} is not writable")


def add_feedback_arguments(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` / ``--progress``: progress bars and notices on stderr (default: only when
    stderr is a terminal); read them back with :func:`feedback`."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quiet", action="store_true",
                       help="no progress bar or compile notice on stderr")
    group.add_argument("--progress", action="store_true",
                       help="progress bar and notices even when stderr is not a terminal")


def feedback(args: argparse.Namespace) -> bool | None:
    """The ``progress`` argument of the library calls: True, False or None (terminal only)."""
    if getattr(args, "quiet", False):
        return False
    return True if getattr(args, "progress", False) else None
