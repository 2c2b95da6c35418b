"""The ``duelbound`` command line: one console script, one module per subcommand.

Each subcommand is a module of this package that defines ``NAME``, ``HELP``,
``ORDER`` (its place in ``--help``), ``add_arguments(parser)`` and
``run(args) -> int``; modules are discovered, so adding a command touches no
other file.  Errors of the package (:class:`DuelboundError`) become one
line on stderr and exit code 2; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..theory.errors import DuelboundError


def _subcommand_modules(only: str | None = None) -> list:
    """Every module of this package that defines a subcommand, in ``ORDER``.

    ``only``: just the module of that command, when a module of that file name
    (``check-claims`` → ``check_claims``) defines it — the commands import the solvers
    and the simulator, and importing all of them for one command cost ~1 s of start-up.
    """
    import pkgutil

    names = [info.name for info in pkgutil.iter_modules(__path__)]
    if only is not None and only.replace("-", "_") in names:
        mod = importlib.import_module(f"{__name__}.{only.replace('-', '_')}")
        if getattr(mod, "NAME", None) == only and hasattr(mod, "run"):
            return [mod]
    mods = []
    for name in names:
        mod = importlib.import_module(f"{__name__}.{name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            mods.append(mod)
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.NAME))

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``command`` alone when it names one."""
    from .. import __version__

    parser = _Parser(
        prog="duelbound",
        description="Exact regret bounds and verification for Copeland dueling bandits.",
        epilog="Run 'duelbound COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"duelbound {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _subcommand_modules(command):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # the command is the first word when given first (the only global options, --help
    # and --version, need every command: they fall back to the full parser)
    parser = build_parser(words[0] if words and not words[0].startswith("-") else None)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args._run(args) or 0)
    except DuelboundError as exc:
        one_line = " ".join(str(exc).splitlines())  # names from files may hold line breaks
        sys.stderr.write(f"duelbound {args.command}: error: {one_line}\n")
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        _kill_children()
        signum = getattr(exc, "signum", 2)  # verify raises it for SIGTERM too
        sys.stderr.write(f"duelbound {args.command}: interrupted\n")
        return 128 + int(signum)
    except BrokenPipeError:
        return 0


def _kill_children() -> None:
    """Kill the worker processes an interrupted command leaves (verify's judges, the interval's
    LP workers).  Killed, not terminated and joined: a worker interrupted while it starts may
    never run its own SIGTERM handler, and multiprocessing's exit handler would then wait
    for it forever (seen under load: the command never exited)."""
    if "multiprocessing" not in sys.modules:
        return
    import multiprocessing

    for proc in multiprocessing.active_children():
        proc.kill()
        proc.join(1.0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
