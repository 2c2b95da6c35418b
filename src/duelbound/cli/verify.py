"""Verify a dueling-bandit implementation against the theory and the reference simulator.

The algorithm is given as MODULE:FACTORY, where FACTORY(K, T, seed) returns either an
object with select() -> (i, j) and update(i, j, i_won) (select protocol), or a callable
run(duel, T) that calls duel(i, j) -> bool until done (duel protocol) — detected
automatically; or as the name of a bundled algorithm.  The module is imported only in
an isolated child process; the environment (matrix, secret-seeded generator), the
record of the duels and the verdicts stay in this process.

Checks per matrix: protocol, consistency, lower bound (slope vs C*), claimed (with
--claimed), reference (with --reference).  Verdicts: PASS, INCONCLUSIVE (not enough
data at this T), WARN, FAIL.

Each run is judged in a sandbox (Linux namespaces through bubblewrap, which comes with
the install: not root, no view of your files, the judge or the network, memory and
processes capped per run) and sees its matrix under a secret relabeling of the arms; the
default suite also holds a matrix drawn from the secret environment seed.  Without a
working sandbox verify refuses, unless --isolation process is given: then the report
says that a hostile module can forge it.

exit codes: 0 PASS; 1 WARN or FAIL; 2 usage or environment error; 3 INCONCLUSIVE (no
WARN or FAIL, but not enough data to pass); 130 / 143 interrupted by SIGINT / SIGTERM
(the runs are stopped and a partial report, marked interrupted, is still printed and
written).

examples:
  duelbound verify examples.my_algorithms:dts --reference d-ts
  duelbound verify mypkg.algos:make --T 1e5 --runs 8 --json report.json
  duelbound verify ecw-rmed my_matrix.txt       # default suite + my_matrix.txt (or --matrices)
  duelbound verify d-ts --only cyclic --example mslr5 --json   # two matrices, JSON on stdout
  duelbound verify d-ts --counts wins.csv       # default suite + the counts' estimate W/(W+Wᵀ)
  duelbound verify mypkg.algos:make --only mslr5 --replay 1234567
  duelbound verify --exec "./my_dts --fast"      # any language: the line protocol
  duelbound verify --exec ./my_dts m.txt         # with --exec, positionals are matrix FILEs

matrices: the default suite plus every FILE, --example, --counts, --comparisons and
--matrices NAME|FILE (read as in every other command); --only NAME|FILE drops the
default suite.  Counts and logs stand for their plug-in estimate µ̂ = W/(W+Wᵀ); a pair
never compared or won equally often (without --break-ties) is refused in one line.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..theory.errors import DuelboundError
from .common import (
    add_feedback_arguments,
    add_json_option,
    add_matrix_arguments,
    add_workers_option,
    check_json_option,
    check_output_path,
    emit_json,
    feedback,
    horizon,
    input_count,
    json_only,
    load_matrices,
    write_json,
)

NAME = "verify"
ORDER = 60
HELP = "verify an outside implementation (protocol, consistency, C*, reference)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..checks.verify.harness import DEFAULT_MATRICES, DEFAULT_RUNS, DEFAULT_T

    parser.add_argument("algorithm", metavar="MODULE:FACTORY", nargs="?",
                        help="factory of the algorithm, or a bundled algorithm name")
    parser.add_argument("--exec", metavar="COMMAND", dest="exec_command",
                        help="instead: a program in any language speaking the line protocol "
                             "(header 'duelbound 1 K T SEED', requests 'i j', answers 1/0/-1; "
                             "docs/verification.md)")
    parser.add_argument("--protocol", choices=("auto", "select", "duel"), default="auto",
                        help="default: detected from what the factory returns")
    add_matrix_arguments(parser, many=True)   # FILE, --example, --counts, --comparisons
    parser.add_argument("--matrices", action="append", default=[], metavar="NAME|FILE",
                        help="bundled dataset or matrix file added to the default suite ("
                             f"{', '.join(DEFAULT_MATRICES)}), like FILE or --example; "
                             "repeatable")
    parser.add_argument("--only", action="append", default=[], metavar="NAME|FILE",
                        help="no default suite: verify on these matrices (and any FILE, "
                             "--example, --counts, --comparisons) only; repeatable")
    parser.add_argument("--T", type=horizon, default=DEFAULT_T,
                        help=f"horizon (accepts 1e5; default {DEFAULT_T})")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS,
                        help=f"runs per matrix (default {DEFAULT_RUNS})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the algorithm's runs")
    parser.add_argument("--replay", type=int, default=None, metavar="ENV_SEED",
                        help="environment seed of an earlier report (default: fresh secret "
                             "entropy, printed in the report)")
    parser.add_argument("--reference", metavar="NAME", help="bundled algorithm to compare with")
    parser.add_argument("--claimed", type=float, metavar="COEF",
                        help="claimed coefficient of log T (komiyama convention)")
    parser.add_argument("--time-limit", type=float, default=300.0, metavar="SEC",
                        help="wall seconds per run (default 300)")
    parser.add_argument("--hang-timeout", type=float, default=20.0, metavar="SEC",
                        help="seconds without a request before a run counts as hung (default 20)")
    parser.add_argument("--memory-limit", type=float, default=4.0, metavar="GIB",
                        help="address space of the algorithm's process (default 4 GiB)")
    parser.add_argument("--budget", type=float, default=1800.0, metavar="SEC",
                        help="wall-clock seconds for everything (default 1800)")
    parser.add_argument("--extend-budget", type=float, default=None, metavar="SEC",
                        help="seconds for re-running undecided matrices at 4T, 16T, ... "
                             "(sequential horizons; default 240; 0 disables)")
    add_workers_option(parser, help="parallel runs (default: half the CPUs)")
    parser.add_argument("--generated", type=int, default=None, metavar="N",
                        help="matrices drawn from the secret environment seed, added to the "
                             "suite (default 1; 0 with --only)")
    parser.add_argument("--startup-timeout", type=float, default=None, metavar="SEC",
                        help="seconds to import the module and build the factory (default "
                             "max(60, 3 × hang timeout))")
    parser.add_argument("--no-relabel", action="store_true",
                        help="show the arms in the matrix's own order (debugging only; the "
                             "report says so)")
    parser.add_argument("--isolation", choices=("sandbox", "process"), default="sandbox",
                        help="sandbox (default; refused when none works) or process: no "
                             "sandbox, for trusted code only (a hostile module can forge "
                             "the report, and the report says so)")
    add_json_option(parser, "the report")   # an existing FILE: a regular .json file only
    add_feedback_arguments(parser)


def _positional_files(args: argparse.Namespace) -> None:
    """With ``--exec`` there is no MODULE:FACTORY: the first positional is a matrix FILE."""
    if args.exec_command is None or args.algorithm is None:
        return
    if ":" in args.algorithm and not os.path.exists(args.algorithm):
        raise DuelboundError("give MODULE:FACTORY (or a bundled name) or --exec COMMAND")
    args.files, args.algorithm = [args.algorithm, *args.files], None


def _route_specs(args: argparse.Namespace) -> None:
    """``--matrices`` / ``--only`` NAME|FILE to the shared reader: a bundled name is an
    ``--example`` (as before, a name wins over a file of that name), anything else a FILE."""
    from ..theory import datasets

    names = set(datasets.names())
    specs = [*args.matrices, *args.only]
    # new lists: the parser's default lists are never mutated
    args.example = [*args.example, *(s for s in specs if s in names)]
    args.files = [*args.files, *(s for s in specs if s not in names)]


def suite(args: argparse.Namespace) -> list:
    """The matrices to verify on: the default suite (unless ``--only``) followed by every
    matrix the command line names, read by the shared reader (:func:`load_matrices`:
    the formats, ``--break-ties``, ``--name`` and errors of every other command).

    ``--counts`` / ``--comparisons`` give their plug-in estimate µ̂_ij = W_ij/(W_ij+W_ji):
    verify then judges the algorithm on that matrix as its environment.  A pair never
    compared, or won equally often without ``--break-ties``, has no µ̂ and is refused in
    one line (the reader's message).
    """
    from ..checks.verify.harness import DEFAULT_MATRICES
    from ..theory import datasets

    _positional_files(args)
    _route_specs(args)
    mats = [] if args.only else [datasets.load(n) for n in DEFAULT_MATRICES]
    return mats + (load_matrices(args) if input_count(args) else [])


def check_report_path(path: str | None) -> None:
    """Refuse a ``--json`` path that is empty, or that exists and is not a regular file
    (a symlink — ``/dev/stdout`` is one —, a FIFO, a device, a socket, a folder): the
    report replaces a regular file atomically and nothing else, ever.

    Raises
    ------
    DuelboundError
        One line naming the path and what it is.
    """
    import stat

    if path is None or path == "-":
        return
    if not path.strip():
        raise DuelboundError("--json needs a file name ('-' for stdout)")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise DuelboundError(f"--json {path}: {exc.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        what = ("a symlink" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode)
                else "a FIFO, device or socket")
        raise DuelboundError(f"--json {path}: is {what}, not a regular file: refused "
                             "(use --json - for stdout)")
    check_output_path(path, option="--json")


def _write_report(data: dict, path: str) -> None:
    check_report_path(path)   # again: the path may have changed during the runs
    write_json(data, path)   # a temporary file beside it, then a rename


def _needs_sandbox(args: argparse.Namespace) -> bool:
    """User code is judged (a bundled algorithm runs compiled in the judge)."""
    return args.exec_command is not None or ":" in (args.algorithm or "")


def run(args: argparse.Namespace) -> int:
    from ..checks.verify.interrupts import INTERRUPTS

    # SIGINT and SIGTERM noted from the start to the last byte of the report, in every
    # phase: the runs stop, nothing more is judged, the partial report is still printed
    # and written, and the command exits 130 / 143 (checks/verify/interrupts.py)
    with INTERRUPTS.installed():
        code = _run(args)
        if INTERRUPTS.signum is not None and code not in (130, 143):
            print(f"duelbound verify: interrupted by {INTERRUPTS.name} while writing the "
                  "report (the report is complete)", file=sys.stderr)
            return 128 + INTERRUPTS.signum
        return code


def _run(args: argparse.Namespace) -> int:
    from ..checks.verify.harness import load_factory, verify_algorithm
    from ..checks.verify.judge import harden
    from ..checks.verify.runs import Progress
    from ..checks.verify.sandbox import isolation

    harden()   # the matrices live here too: no /proc/PID/mem for the algorithm's process
    check_report_path(args.json)   # before any run, not after
    mats = suite(args)   # first: --exec's positional FILE; bad matrices refused before runs
    check_json_option(args)   # an input (FILE, --only, ...) or a non-.json file: refused
    if (args.algorithm is None) == (args.exec_command is None):
        raise DuelboundError("give MODULE:FACTORY (or a bundled name) or --exec COMMAND")
    if _needs_sandbox(args):
        isolation(args.isolation)   # no working sandbox: one line, before any work
    spec = load_factory(args.algorithm) if args.exec_command is None else None  # never imported
    report = verify_algorithm(spec, mats, T=args.T, runs=args.runs, reference=args.reference,
                    protocol=args.protocol, claimed_coefficient=args.claimed,
                    time_limit=args.time_limit, hang_timeout=args.hang_timeout,
                    memory_limit=args.memory_limit, budget=args.budget, seed=args.seed,
                    extend_budget=args.extend_budget,
                    workers=args.workers, name=args.algorithm or f"exec {args.exec_command}",
                    environment_seed=args.replay,
                    progress=bool(feedback(args, default=sys.stderr.isatty())),
                    generated=args.generated if args.generated is not None else
                    (0 if args.only else 1),
                    startup_timeout=args.startup_timeout, relabel=not args.no_relabel,
                    command=args.exec_command, isolation=args.isolation)
    Progress.phase("report")
    if json_only(args):
        emit_json(args, report.to_dict())
    else:
        if args.json:   # first: a reader that closes stdout early (| head) loses no file
            _write_report(report.to_dict(), args.json)
        try:
            print(report.table(), flush=True)
        except BrokenPipeError:   # the verdict's exit code all the same, not 0
            sys.stdout = open(os.devnull, "w")   # noqa: SIM115 — nothing more to print
    if report.interrupted:
        print(f"duelbound verify: interrupted by {report.interrupted}: partial report",
              file=sys.stderr)
    if report.environment_error is not None:
        print(f"duelbound verify: environment error: {report.environment_error['message']}",
              file=sys.stderr)
    return report.exit_code
