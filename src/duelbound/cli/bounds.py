"""Regret lower bound C* ([K16] Theorem 2) and ECW-RMED's C^E* ([K16] §4.2).

Prints C*_{i1} and C^E*_{i1} for every Copeland winner (komiyama regret
convention, coefficients of log T), the optimal exploration allocation as a
table of pairs with N_ij / log T, the tight constraints and the certificate status.

examples:
  duelbound bounds --example cyclic
  duelbound bounds matrix.txt --json
  duelbound bounds matrix.txt --method rowgen --no-certify   # K = 100: ~6 min (rounds shown)
  duelbound bounds --example cyclic --symbolic
  duelbound bounds big.txt --json --max-k 0   # an LP above K = 500 (progress on stderr)
  duelbound bounds --counts wins.txt --interval 0.95
  duelbound bounds m.txt --certificate cert.json   # then: duelbound check-certificate cert.json
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import DuelboundError
from .common import (
    add_draws_arguments,
    add_feedback_arguments,
    add_json_option,
    add_matrix_arguments,
    check_json_option,
    check_one_source,
    check_output_path,
    draws_options,
    emit_json,
    feedback,
    json_only,
    load_counts,
    load_matrix,
    write_atomically,
)

NAME = "bounds"
ORDER = 20
HELP = "regret lower bound C* (exact LP, certified) and ECW-RMED's C^E*"



def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..solvers.certificate import EXACT_MAX_K
    from ..solvers.cstar import AUTO_METHOD, CERTIFY_MAX_K, LP_MAX_K, METHODS
    from ..solvers.interval import METHODS as INTERVAL_METHODS

    add_matrix_arguments(parser)
    add_json_option(parser)
    parser.add_argument("--method", choices=METHODS, default="auto",
                        help=f"LP formulation for C* (default: auto = {AUTO_METHOD})")
    cert = parser.add_mutually_exclusive_group()
    cert.add_argument("--certify", dest="certify", action="store_true", default=None,
                      help=f"certify C* also above K = {CERTIFY_MAX_K} (default: exact "
                           f"certificate on for K <= {CERTIFY_MAX_K}; above, a bare --certify "
                           "uses the floating-point certificate verified exactly)")
    cert.add_argument("--certify-mode", dest="certify",
                      choices=("auto", "exact", "float-dual", "interval"),
                      help=f"certify with this mode ('interval' is the old name of float-dual, "
                           f"deprecated): exact (rational arithmetic), float-dual "
                           f"(floating-point duals verified exactly; width ~1e-15, faster at "
                           f"large K) or auto (exact up to K = {EXACT_MAX_K}, float-dual above; "
                           "what --certify does)")
    cert.add_argument("--no-certify", dest="certify", action="store_false")
    parser.add_argument("--certificate", metavar="FILE",
                        help="write the proof of C*'s enclosure as a self-contained JSON "
                             "certificate (docs/certificates.md) and check it independently")
    parser.add_argument("--max-k", type=int, default=LP_MAX_K, metavar="K",
                        help=f"refuse up front (with a time estimate) when C* needs an LP "
                             f"above K arms (default {LP_MAX_K}; 0 = no limit); progress "
                             "per winner is shown on stderr")
    parser.add_argument("--symbolic", action="store_true",
                        help="also print C* as a closed form in d(p, 1/2) (needs a certificate)")
    parser.add_argument("--interval", type=float, metavar="LEVEL", default=None,
                        help="with --counts/--comparisons: LEVEL intervals for C* and C^E*, "
                             "P(winners right), flip risks (docs/uncertainty.md)")
    parser.add_argument("--interval-method", choices=INTERVAL_METHODS, default="posterior",
                        help="posterior credible interval (default) or parametric bootstrap "
                             "(an error when tied or never-compared pairs leave the plug-in "
                             "estimate undefined)")
    add_draws_arguments(parser)
    add_feedback_arguments(parser)


def _write_certificate(path: str, M, lb) -> None:
    """Write the certificate atomically, check it with the independent checker, and say so
    on stderr (stdout stays the report)."""
    import json
    import time

    from .. import __version__
    from ..checks.proof import check_certificate

    doc = lb.certificate_document(generator=f"duelbound {__version__}", name=M.name,
                                  arms=list(M.arms) if M.arms else None)
    text = json.dumps(doc, indent=None, separators=(",", ":"))
    write_atomically(path, text + "\n")
    t0 = time.perf_counter()
    out = check_certificate(json.loads(text))
    print(f"certificate: {path} ({len(text) / 1024:.1f} KiB), checked independently in "
          f"{time.perf_counter() - t0:.2g} s: C* in [{out['lower_float']!r}, "
          f"{out['upper_float']!r}]", file=sys.stderr)


def _certify(args: argparse.Namespace) -> bool | str | None:
    """``--certify*`` as the ``certify`` keyword; ``--certificate`` needs one."""
    if args.certificate:
        if args.certify is False:
            raise DuelboundError("--certificate needs a certificate: drop --no-certify")
        return args.certify or True
    return args.certify


def _answer(args: argparse.Namespace) -> Any:
    """The report of the command line's source: :func:`answer_counts` for win counts (the
    plug-in report, or the posterior interval where the estimate is undefined), else
    :func:`bounds_report` of the matrix.  Has ``text()``/``render()`` and ``to_dict()``."""
    from ..solvers.bounds_report import bounds_report
    from ..solvers.estimates import answer_counts

    progress = feedback(args, default=True)
    solver = {"method": args.method, "certify": _certify(args), "symbolic": args.symbolic,
              "max_k": args.max_k or None, "progress": progress}
    counts = load_counts(args)
    if counts is None:
        if args.interval is not None:
            raise DuelboundError("--interval needs win counts: --counts FILE or "
                                 "--comparisons FILE")
        return bounds_report(load_matrix(args), **solver)
    check_one_source(args)
    if args.certificate:  # before any draw: the certificate needs the plug-in matrix
        try:
            counts.matrix(break_ties=args.break_ties)
        except DuelboundError as exc:
            raise DuelboundError(f"no certificate: {exc}") from None
    ans = answer_counts(counts, question="bounds", interval=args.interval,
                        interval_method=args.interval_method, break_ties=args.break_ties,
                        **{**solver, **draws_options(args, progress)})
    for note in ans.notes:
        print(f"duelbound: {note}", file=sys.stderr)
    return ans


def run(args: argparse.Namespace) -> int:
    from ..solvers.bounds_report import BoundsReport

    check_output_path(args.certificate, option="--certificate")
    check_json_option(args)
    ans = _answer(args)
    rep = getattr(ans, "bounds", ans)  # the plug-in BoundsReport, None when undefined
    if args.certificate and rep is not None:
        if rep.lower_bound.proof.enclosure is None:
            raise DuelboundError("no certificate written: "
                                 f"{rep.lower_bound.certificate.get('message')}")
        _write_certificate(args.certificate, rep.matrix, rep.lower_bound)
    if not json_only(args):
        print(ans.text() if hasattr(ans, "text") else ans.render())
    K = ans.counts.K if hasattr(ans, "counts") else ans.matrix.K
    emit_json(args, ans.to_dict(), indent=2 if K <= BoundsReport.INDENT_MAX_K else None)
    return 0
