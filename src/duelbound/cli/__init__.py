"""The ``duelbound`` command line: one console script, one module per subcommand.

Each subcommand is a module of this package that defines ``NAME``, ``HELP``,
``ORDER`` (its place in ``--help``; the three as literals), ``add_arguments(parser)`` and
``run(args) -> int``; modules are discovered, so adding a command touches no
other file.  ``duelbound --help`` reads the three literals from the sources and imports
no command; ``duelbound COMMAND`` imports that command's module alone, and the module
imports what it runs inside ``add_arguments`` / ``run``.  Errors of the package
(:class:`DuelboundError`) become one line on stderr and exit code 2; no traceback reaches
the user.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NamedTuple

# Nothing heavy here or at the top of a command module: ``duelbound --help`` reads the
# commands' NAME / HELP / ORDER from their source without importing them (issue 31: it
# took 3.5 s importing numba, the solvers and scipy.stats), and a command imports what it
# runs inside ``run``.


class _Command(NamedTuple):
    """A subcommand as its module's source declares it (``NAME``, ``HELP``, ``ORDER``)."""

    name: str
    help: str
    order: int
    module: str


def _declared(path: str) -> dict[str, object]:
    """The literal top-level ``NAME``, ``HELP`` and ``ORDER`` of the module at ``path``,
    read with :mod:`ast` (the module is not imported)."""
    import ast

    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("NAME", "HELP", "ORDER"):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # not a literal: the module must be imported to know it
                pass
    return out


def _commands() -> list[_Command]:
    """Every module of this package that declares a subcommand, in ``ORDER``, found
    without importing any of them."""
    import os
    import pkgutil

    found = []
    for info in pkgutil.iter_modules(__path__):
        decl = _declared(os.path.join(__path__[0], f"{info.name}.py"))
        if isinstance(decl.get("NAME"), str):
            found.append(_Command(str(decl["NAME"]), str(decl.get("HELP", "")),
                                  int(decl.get("ORDER", 100)),  # type: ignore[call-overload]
                                  f"{__name__}.{info.name}"))
    return sorted(found, key=lambda c: (c.order, c.name))


EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def build_parser(command: str | None = None, *, every: bool = True) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``command`` alone when it names one.

    Parameters
    ----------
    command : str, optional
        Build the options of this command only (its module alone is imported).
    every : bool
        Without ``command``: build every command's options (importing every command
        module); False lists the commands by name and help only, importing none of them
        (``duelbound --help``).
    """
    from .. import __version__

    parser = _Parser(
        prog="duelbound",
        description="Exact regret bounds and verification for Copeland dueling bandits.",
        epilog="Run 'duelbound COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"duelbound {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for cmd in _commands():
        if command is not None and cmd.name != command or command is None and not every:
            sub.add_parser(cmd.name, help=cmd.help)  # listed, not built
            continue
        mod = importlib.import_module(cmd.module)
        p = sub.add_parser(cmd.name, help=cmd.help, description=mod.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # the command is the first word when given first (the only global options, --help
    # and --version, list the commands without importing them)
    command = words[0] if words and not words[0].startswith("-") else None
    parser = build_parser(command, every=False)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    from ..errors import DuelboundError

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
