"""Regret lower bound C* ([K16] Theorem 2) and ECW-RMED's C^E* ([K16] §4.2).

Prints C*_{i1} and C^E*_{i1} for every Copeland winner (komiyama regret
convention, coefficients of log T), the optimal exploration allocation as a
table of pairs with N_ij / log T, the tight constraints and the certificate status.

examples:
  duelbound bounds --example cyclic
  duelbound bounds matrix.txt --json
  duelbound bounds matrix.txt --method rowgen --no-certify
  duelbound bounds --example cyclic --symbolic
  duelbound bounds big.txt --json --max-k 0   # an LP above K = 500 (progress on stderr)
  duelbound bounds --counts wins.txt --interval 0.95
  duelbound bounds m.txt --certificate cert.json   # then: duelbound check-certificate cert.json
"""

from __future__ import annotations

import argparse

from ..solvers.bounds_report import bounds_report
from ..solvers.certificate import EXACT_MAX_K
from ..solvers.cstar import AUTO_METHOD, CERTIFY_MAX_K, LP_MAX_K, METHODS
from ..solvers.interval import METHODS as INTERVAL_METHODS
from ..solvers.interval import lower_bound_interval
from ..theory.errors import DuelboundError
from ..theory.posterior import undefined_pairs
from .common import (
    add_draws_arguments,
    add_feedback_arguments,
    add_json_option,
    add_matrix_arguments,
    check_json_option,
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

_INDENT_MAX_K = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    add_json_option(parser)
    parser.add_argument("--method", choices=METHODS, default="auto",
                        help=f"LP formulation for C* (default: auto = {AUTO_METHOD})")
    cert = parser.add_mutually_exclusive_group()
    cert.add_argument("--certify", dest="certify", action="store_true", default=None,
                      help=f"certify C* also above K = {CERTIFY_MAX_K} (default: exact "
                           f"certificate on for K <= {CERTIFY_MAX_K}; above, a bare --certify "
                           "uses the floating-point certificate verified exactly)")
    cert.add_argument("--certify-mode", dest="certify", choices=("auto", "exact", "interval"),
                      help=f"certify with this mode: exact (rational arithmetic), interval "
                           f"(floating-point duals verified exactly; width ~1e-15, faster at "
                           f"large K) or auto (exact up to K = {EXACT_MAX_K}, interval above; "
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
    import sys
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


def _interval_only(args: argparse.Namespace, C, tied: list, never: list) -> int:
    """Counts whose plug-in µ̂ is undefined (ties, unobserved pairs): say which pairs, and
    answer with the posterior interval instead (docs/uncertainty.md)."""
    import sys
    import textwrap

    def named(what: str, pairs: list) -> None:
        shown = "; ".join(f"{C.label(i)} vs {C.label(j)}" for i, j in pairs[:3])
        more = f" ... {len(pairs) - 3} more (see --json)" if len(pairs) > 3 else ""
        print("\n".join(textwrap.wrap(f"{what}: {shown}{more}", 100, initial_indent="  ",
                                      subsequent_indent="    ", break_on_hyphens=False)))

    why = [f"{len(tied)} pair(s) won equally often" if tied else "",
           f"{len(never)} pair(s) never compared" if never else ""]
    reason = " and ".join(w for w in why if w)
    level = args.interval if args.interval is not None else 0.95
    print(f"duelbound: the plug-in C* is undefined ({len(tied)} tied, {len(never)} never "
          f"compared pair(s)); answering with the {level:g} posterior interval "
          f"({args.draws} draws)", file=sys.stderr)
    rep = lower_bound_interval(C, level=level, method="posterior",
                               **draws_options(args, feedback(args, default=True)))
    if not json_only(args):
        print(f"plug-in C*: undefined — {reason}:")
        if tied:
            named("tied", tied)
        if never:
            named("never compared", never)
        print("The posterior over the matrix is defined whatever the counts; its interval "
              "follows.\n(--break-ties EPS would perturb the tied pairs instead; every "
              "gap-dependent value\nwould then be an artefact of EPS.)\n")
        print(rep.render())
    emit_json(args, {"plug_in": {"defined": False, "reason": reason,
                                 "tied": [list(p) for p in tied],
                                 "never_compared": [list(p) for p in never]},
                     "interval": rep.to_dict()}, indent=2 if C.K <= _INDENT_MAX_K else None)
    return 0


def run(args: argparse.Namespace) -> int:
    check_output_path(args.certificate, option="--certificate")
    check_json_option(args)
    counts = load_counts(args)
    if counts is not None and args.break_ties is None:
        # every pair listed in --json up to K = LP_MAX_K (where the interval is possible)
        u = undefined_pairs(counts.wins, limit=LP_MAX_K * LP_MAX_K if counts.K <= LP_MAX_K
                            else 0)
        n_tied, n_never, tied, never = u.n_tied, u.n_never, u.tied, u.never
        if n_tied or n_never:
            if counts.K > LP_MAX_K:
                raise DuelboundError(
                    f"the plug-in C* is undefined ({n_tied} tied, {n_never} never compared "
                    f"pair(s)) and its posterior interval needs an LP per draw at K = "
                    f"{counts.K} (> {LP_MAX_K}); compare the missing pairs, or drop arms")
            if args.certificate:
                raise DuelboundError("no certificate: the plug-in matrix is undefined (tied or "
                                     "never-compared pairs)")
            if args.interval_method == "bootstrap":  # it resamples around the undefined µ̂
                raise DuelboundError(
                    f"--interval-method bootstrap resamples around the plug-in estimate, which "
                    f"is undefined here ({n_tied} tied, {n_never} never compared pair(s)); "
                    "drop it for the posterior interval, or --break-ties EPS")
            return _interval_only(args, counts, tied, never)
    M = load_matrix(args)
    certify = args.certify
    if args.certificate:
        if certify is False:
            raise DuelboundError("--certificate needs a certificate: drop --no-certify")
        certify = certify or True
    interval = None
    if args.interval is not None:
        counts = load_counts(args)
        if counts is None:
            raise DuelboundError("--interval needs win counts: --counts FILE or "
                                 "--comparisons FILE")
        interval = {"counts": counts, "level": args.interval, "method": args.interval_method,
                    "break_ties": args.break_ties,
                    **draws_options(args, feedback(args, default=True))}
    rep = bounds_report(M, method=args.method, certify=certify, symbolic=args.symbolic,
                        progress=feedback(args, default=True), max_k=args.max_k or None,
                        interval=interval)
    if args.certificate:
        if rep.lower_bound.proof is None:
            raise DuelboundError("no certificate written: "
                                 f"{rep.lower_bound.certificate.get('message')}")
        _write_certificate(args.certificate, M, rep.lower_bound)
    if not json_only(args):
        print(rep.render())
    emit_json(args, rep.to_dict(), indent=rep.json_indent)
    return 0
