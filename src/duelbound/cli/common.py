"""The one dialect of the command line: options and output shared by every subcommand.

Every command builds its options from these helpers, so an option means the same thing
everywhere (issue 33):

========================  =========================================================
helper                    what it adds / does
========================  =========================================================
:func:`add_matrix_arguments`  ``FILE``, ``--example``, ``--counts``, ``--comparisons``,
                          ``--draw-policy``, ``--name``, ``--break-ties``
:func:`add_json_option`   ``--json [FILE]``: bare, the JSON goes to stdout *instead of*
                          the text; with ``FILE`` (or ``-``), the text is printed and the
                          JSON written to FILE atomically.  Read back with
                          :func:`json_only` (stdout is JSON) and :func:`emit_json`.
:func:`add_workers_option`  ``--workers N`` (``--processes N``: hidden alias that warns)
:func:`add_feedback_arguments`  ``--progress`` / ``--quiet`` (``--no-progress``: hidden
                          alias of ``--quiet`` that warns); read with :func:`feedback`
:func:`add_latex_arguments`  the LaTeX options of tables, with :func:`latex_style` and
                          :func:`write_bib`
:func:`horizon`           argparse type of an integer horizon T (``1e6`` accepted)
:func:`check_output_path`  refuse an unusable output path before any work
:func:`write_atomically`  every file the CLI writes (temporary file + rename)
========================  =========================================================

Applying them to a command (what ``simulate`` and ``verify`` need)::

    def add_arguments(parser):
        add_matrix_arguments(parser)
        add_json_option(parser)            # replaces --json FILE / --json flags
        add_workers_option(parser)         # replaces --processes / --workers
        add_feedback_arguments(parser)     # replaces --quiet / --progress

    def run(args):
        check_json_option(args)            # before any work: path usable, no input clobbered
        ...
        if not json_only(args):
            print(text)
        emit_json(args, result.to_dict())  # nothing without --json; stdout or FILE
        ... progress=feedback(args), workers=args.workers ...

Nothing heavy is imported here at module level (numpy, the solvers, the readers are
imported inside the functions that use them): ``duelbound --help`` imports every command
module and must start at once (issue 31).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
from typing import TYPE_CHECKING, Any

from ..errors import DuelboundError  # the ground floor: imports no layer

if TYPE_CHECKING:
    from ..theory.counts import WinCounts
    from ..theory.matrix import PreferenceMatrix


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
    from ..theory import datasets
    from ..theory.counts import DRAW_POLICIES

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
        from ..theory.counts import read_comparisons, read_counts

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
    """The ``--counts`` / ``--comparisons`` sources whose estimate µ̂ has no tournament
    (:func:`~duelbound.solvers.posterior_table.undefined_estimates` decides)."""
    from ..solvers.posterior_table import undefined_estimates

    return undefined_estimates(_all_counts(args), getattr(args, "break_ties", None))


def load_counts(args: argparse.Namespace) -> WinCounts | None:
    """The raw win counts given by ``--counts FILE`` or ``--comparisons FILE``, or None.

    ``--name`` renames them.  Notes of the reader (ignored self-comparisons, extra log
    columns) go to stderr once.

    Raises
    ------
    DuelboundError
        More than one counts source given, or the file is unreadable or invalid.
    """
    from dataclasses import replace

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
    from ..theory import datasets
    from ..theory.io import read_matrix

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


def check_one_source(args: argparse.Namespace) -> None:
    """Refuse a command line that names more than one matrix source."""
    if input_count(args) > 1:
        raise DuelboundError("give one of a matrix FILE, --example NAME, --counts FILE or "
                             "--comparisons FILE, not several")


def load_matrix(args: argparse.Namespace) -> PreferenceMatrix:
    """The single matrix named on the command line."""
    check_one_source(args)
    return load_matrices(args)[0]


# -- files --------------------------------------------------------------------------

def write_json(data: Any, path: str | None = None, *, indent: int | None = 2) -> None:
    """JSON to ``path`` (atomically) or stdout (``None`` or ``"-"``).

    ``indent=None``: one line, C encoder — much faster for large nested lists such as K×K
    allocations.
    """
    text = json.dumps(data, indent=indent, default=_json_default)
    if path in (None, "-"):
        sys.stdout.write(text + "\n")
    else:
        write_atomically(path, text + "\n")


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` all at once; a missing final line break is added.

    A temporary file in the same folder, then a rename, so a reader (or a crash, or an
    interruption) never sees half a file and nothing is opened at ``path`` itself (a FIFO
    put there cannot block the writer).  The checks of :func:`check_output_path` run
    first: an empty path, a folder, a FIFO or device, or a symbolic link (the rename
    would replace the link itself, not the file it points to) are refused.

    Raises
    ------
    DuelboundError
        One line: the path is refused or the file cannot be written.
    """
    import tempfile

    check_output_path(path)
    if not text.endswith("\n"):
        text += "\n"
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".duelbound-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
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
        One line: the path is empty, the folder is missing or not writable, the path is a
        folder, a symbolic link, a FIFO, a device or a socket, an existing file is
        read-only, or the extension is not one of ``kinds``.
    """
    if path is None or path == "-":
        return
    if not path.strip():
        raise DuelboundError(f"{option}: the path is empty")
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if kinds is not None and ext not in kinds:
        raise DuelboundError(f"{option} {path}: unsupported extension "
                             f"(use {', '.join('.' + k for k in kinds)})")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise DuelboundError(f"{option} {path}: folder {folder} does not exist")
    if os.path.islink(path):  # the rename would replace the link, not its target
        raise DuelboundError(f"{option} {path}: is a symbolic link; give the path of the file "
                             "itself (a link is never replaced)")
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


# -- --json [FILE] ---------------------------------------------------------------------

def add_json_option(parser: argparse.ArgumentParser, what: str = "the results") -> None:
    """``--json [FILE]``: bare, JSON on stdout instead of the text (the old flag of
    bounds/structure/...); ``--json FILE``, the text on stdout and JSON written to FILE
    atomically; ``--json -``, JSON on stdout (the old ``FILE`` option of simulate/verify)."""
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                        help=f"{what} as JSON: on stdout instead of the text (bare --json or "
                             "--json -), or also written to FILE (atomically)")


def json_only(args: argparse.Namespace) -> bool:
    """True when stdout is the JSON document (bare ``--json`` or ``--json -``): print no
    text then."""
    return getattr(args, "json", None) == "-"


def _input_paths(args: argparse.Namespace) -> list[str]:
    paths = _listed(args, "files") if hasattr(args, "files") else _listed(args, "file")
    for attr in ("counts", "comparisons", "matrices", "store", "certificate", "notes", "bib",
                 "plot"):
        value = getattr(args, attr, None)
        if isinstance(value, str):
            paths.append(value)
        elif isinstance(value, list):
            paths.extend(v for v in value if isinstance(v, str))
    return paths


def check_json_option(args: argparse.Namespace) -> None:
    """Refuse ``--json FILE`` before any work: the checks of :func:`check_output_path`,
    FILE named by another option (an input it would overwrite), or an existing file that
    does not end in ``.json`` (``--json matrix.txt`` meant the matrix, not the output).

    Raises
    ------
    DuelboundError
        One line naming FILE and what to do.
    """
    path = getattr(args, "json", None)
    check_output_path(path, option="--json")
    if path in (None, "-"):
        return
    for other in _input_paths(args):
        if os.path.exists(other) and os.path.exists(path) and os.path.samefile(other, path):
            raise DuelboundError(f"--json {path}: is also given as an input or another output; "
                                 "put --json last or give another file")
    if os.path.exists(path) and not path.lower().endswith(".json"):
        raise DuelboundError(f"--json {path}: an existing file that is not .json; refused (bare "
                             "--json prints JSON on stdout: put it after the FILE arguments)")


def emit_json(args: argparse.Namespace, data: Any, *, indent: int | None = 2) -> None:
    """Write ``data`` where ``--json`` says: stdout (bare / ``-``), FILE, or nowhere."""
    path = getattr(args, "json", None)
    if path is not None:
        write_json(data, path, indent=indent)


# -- workers, progress -----------------------------------------------------------------

def positive_int(text: str) -> int:
    """argparse type of a count that must be >= 1 (workers, runs)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


class _DeprecatedAlias(argparse.Action):
    """A hidden old spelling kept for one release: stores into the new option's ``dest``
    and warns once on stderr."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stderr.write(f"duelbound: warning: {option_string} is deprecated and will be "
                         f"removed in the next release; use {self.new}\n")
        setattr(namespace, self.dest, True if self.nargs == 0 else values)


def add_workers_option(parser: Any, help: str = "worker processes") -> None:
    """``--workers N`` (default None: the command's own default); ``--processes N`` is a
    hidden alias that warns."""
    parser.add_argument("--workers", type=positive_int, default=None, metavar="N", help=help)
    parser.add_argument("--processes", type=positive_int, dest="workers", action=_DeprecatedAlias,
                        new="--workers", help=argparse.SUPPRESS)


def add_scheduler_option(parser: Any, what: str) -> None:
    """``--scheduler ADDRESS``: an existing Dask cluster (``tcp://host:port``) for ``what``."""
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help=f"{what}, e.g. tcp://127.0.0.1:8786")


def add_feedback_arguments(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` / ``--progress``: progress bars and notices on stderr (default: only when
    stderr is a terminal); read them back with :func:`feedback`.  ``--no-progress``, an
    old spelling of ``--quiet``, is a hidden alias that warns."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quiet", action="store_true",
                       help="no progress bar or notice on stderr")
    group.add_argument("--progress", action="store_true",
                       help="progress bar and notices even when stderr is not a terminal")
    group.add_argument("--no-progress", dest="quiet", action=_DeprecatedAlias, nargs=0,
                       new="--quiet", help=argparse.SUPPRESS)


def feedback(args: argparse.Namespace, default: bool | None = None) -> bool | None:
    """The ``progress`` argument of the library calls: False with ``--quiet``, True with
    ``--progress``, else ``default`` (None: on a terminal only)."""
    if getattr(args, "quiet", False):
        return False
    return True if getattr(args, "progress", False) else default


# -- draws from win counts (bounds, table) ----------------------------------------------

def add_draws_arguments(parser: argparse.ArgumentParser, title: str | None = None) -> None:
    """``--draws``, ``--seed``, ``--cstar-draws`` and ``--workers`` of the posterior (or
    bootstrap) draws from win counts (in a group of the help headed ``title`` when given);
    read back with :func:`draws_options`."""
    from ..solvers.interval import AUTO_CSTAR_SECONDS, DEFAULT_DRAWS, DRAW_SECONDS, MIN_CSTAR_DRAWS

    group: Any = parser if title is None else parser.add_argument_group(title)
    group.add_argument("--draws", type=positive_int, default=DEFAULT_DRAWS, metavar="N",
                       help=f"draws from the counts (default {DEFAULT_DRAWS})")
    group.add_argument("--seed", type=int, default=0, help="seed of the draws")
    group.add_argument("--cstar-draws", default="auto", metavar="N|all|auto",
                       help=f"solve C* (an LP per draw: ~{DRAW_SECONDS[100]:g} s at K = 100, "
                            f"~{DRAW_SECONDS[300]:g} s at K = 300 on one core) "
                            "on the first N draws only; the winner sets, flip risks and "
                            "C^E* use every draw.  auto (default): every draw when that "
                            f"takes <= ~{AUTO_CSTAR_SECONDS:.0f} s of one core, else that "
                            f"many but at least {MIN_CSTAR_DRAWS} (a rule of K: reproducible)")
    add_workers_option(group, help="workers of a local Dask cluster for the C* draws, started "
                                   "when their LPs are estimated to take long (default: the "
                                   "CPUs, at most 8)")
    add_scheduler_option(group, "an existing Dask scheduler: the C* draws run there, in tasks "
                                 "of whole tournaments")


def draws_options(args: argparse.Namespace, progress: bool | None = True) -> dict[str, Any]:
    """The keywords ``draws``, ``seed``, ``cstar_draws``, ``workers``, ``scheduler`` and
    ``progress`` of ``lower_bound_interval`` / ``answer_counts`` / ``posterior_table`` from
    :func:`add_draws_arguments`.

    Raises
    ------
    DuelboundError
        ``--cstar-draws`` neither an integer >= 10, ``all`` nor ``auto``.
    """
    raw = str(args.cstar_draws).lower()
    cstar: int | str | None
    if raw in ("all", "auto"):
        cstar = None if raw == "all" else "auto"
    else:
        try:
            cstar = int(raw)
        except ValueError:
            raise DuelboundError(f"--cstar-draws takes an integer, 'all' or 'auto', got "
                                 f"{args.cstar_draws!r}") from None
        if cstar < 10:
            raise DuelboundError(f"--cstar-draws must be >= 10, got {cstar}")
    workers = args.workers if args.workers is not None else min(os.cpu_count() or 1, 8)
    return {"draws": args.draws, "seed": args.seed, "cstar_draws": cstar, "workers": workers,
            "scheduler": args.scheduler, "progress": progress}


# -- LaTeX tables --------------------------------------------------------------------

def add_latex_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of LaTeX output shared by ``table`` and ``sweep-report``; read back with
    :func:`latex_style` and :func:`write_bib`."""
    from ..render import TEXTWIDTH_PT

    g = parser.add_argument_group("LaTeX output (--format latex)")
    g.add_argument("--latex-env", choices=("table", "table*", "none"), default="table",
                   help="float environment: table (default), table* (both columns of a "
                        "two-column paper), none (tabulars and notes only, to \\input)")
    g.add_argument("--latex-resize", action="store_true",
                   help="one tabular scaled to the line width with \\resizebox (needs "
                        "graphicx) instead of stacked panels")
    g.add_argument("--latex-width", type=float, metavar="PT",
                   help=f"width to fit in pt (default {TEXTWIDTH_PT:g}, the \\textwidth of "
                        "a 10pt article; 469 with table*)")
    g.add_argument("--latex-label", metavar="LABEL", help="\\label of the table")
    g.add_argument("--bib", metavar="FILE",
                   help="also write the BibTeX file of the cited papers (as 'duelbound cite')")


def latex_style(args: argparse.Namespace) -> Any:
    """The ``LatexStyle`` of the parsed LaTeX options."""
    from ..render import LatexStyle

    return LatexStyle(env=args.latex_env, resize=args.latex_resize, width=args.latex_width,
                      label=args.latex_label)


def write_bib(path: str | None) -> None:
    """Write the bibliography of the cited papers to ``path`` (atomically), if given."""
    if path:
        from ..solvers.tables import bibliography

        write_atomically(path, bibliography())
