"""Helpers shared by the subcommands: matrix arguments and output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from duelbound.theory import examples
from duelbound.theory.errors import DuelboundError
from duelbound.theory.io import read_matrix
from duelbound.theory.matrix import PreferenceMatrix


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
    """``FILE`` (one, or several with ``many``) or ``--example NAME``, plus ``--break-ties``."""
    if many:
        parser.add_argument("files", nargs="*", metavar="FILE",
                            help="matrix files (text, CSV/TSV, .npy, .json)")
        parser.add_argument("--example", action="append", default=[], metavar="NAME",
                            help=f"bundled dataset (repeatable; 'duelbound datasets' lists them): "
                                 f"{', '.join(examples.names())}")
    else:
        parser.add_argument("file", nargs="?", metavar="FILE",
                            help="matrix file (text, CSV/TSV, .npy, .json)")
        parser.add_argument("--example", metavar="NAME",
                            help=f"bundled dataset ('duelbound datasets' lists them): "
                                 f"{', '.join(examples.names())}")
    parser.add_argument("--break-ties", type=float, metavar="EPS", default=None,
                        help="perturb exact ties mu_ij = 1/2 to 1/2 +- EPS (the lower index wins);"
                             " results then hold for the perturbed matrix")


def load_matrices(args: argparse.Namespace) -> list[PreferenceMatrix]:
    """The matrices named on the command line, validated, in the order given."""
    files = getattr(args, "files", None)
    if files is None:
        files = [args.file] if args.file else []
    names = args.example if isinstance(args.example, list) else (
        [args.example] if args.example else [])
    if not files and not names:
        raise DuelboundError("give a matrix FILE or --example NAME")
    out = [read_matrix(f, break_ties=args.break_ties) for f in files]
    out += [examples.load(n, break_ties=args.break_ties) for n in names]
    return out


def load_matrix(args: argparse.Namespace) -> PreferenceMatrix:
    """The single matrix named on the command line."""
    if args.file and args.example:
        raise DuelboundError("give either a matrix FILE or --example NAME, not both")
    return load_matrices(args)[0]


def write_json(data: Any, path: str | None = None) -> None:
    """JSON to ``path`` or stdout."""
    text = json.dumps(data, indent=2, default=_json_default)
    if path in (None, "-"):
        sys.stdout.write(text + "\n")
    else:
        try:
            with open(path, "w") as fh:
                fh.write(text + "\n")
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
