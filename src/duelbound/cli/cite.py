"""Print the BibTeX entries of the papers duelbound cites (its LaTeX tables use these keys).

The LaTeX tables of 'duelbound table' and 'duelbound sweep-report' cite sources as
\\cite{KEY}; add this file to your bibliography (\\bibliography{duelbound}).

examples:
  duelbound cite                         # all entries on stdout
  duelbound cite --bib duelbound.bib     # written to a file
  duelbound cite --keys                  # tag -> key: K16 komiyama2016copeland, ...
"""

from __future__ import annotations

import argparse

from .common import check_output_path, write_bib

NAME = "cite"
ORDER = 90
HELP = "print the BibTeX file of the papers cited by the LaTeX tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bib", metavar="FILE", help="write the entries to FILE instead")
    parser.add_argument("--keys", action="store_true",
                        help="list the source tags used in tables and their BibTeX keys")


def run(args: argparse.Namespace) -> int:
    from ..solvers.tables import CITE_KEYS, bibliography

    check_output_path(args.bib, None, "--bib")
    if args.keys:
        print("\n".join(f"{tag} {key}" for tag, key in CITE_KEYS.items()))
        return 0
    if args.bib:
        write_bib(args.bib)
    else:
        print(bibliography().rstrip("\n"))
    return 0
