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

import numpy as np

from ..solvers.certificate import EXACT_MAX_K
from ..solvers.cstar import (
    AUTO_METHOD,
    CERTIFY_MAX_K,
    LP_MAX_K,
    METHODS,
    lower_bound,
)
from ..solvers.ecw import ecw_bound
from ..solvers.interval import (
    AUTO_CSTAR_SECONDS,
    DEFAULT_DRAWS,
    MIN_CSTAR_DRAWS,
    lower_bound_interval,
)
from ..solvers.interval import METHODS as INTERVAL_METHODS
from ..theory.errors import DuelboundError
from ..theory.posterior import undefined_pairs
from .common import (
    add_matrix_arguments,
    check_output_path,
    clip,
    load_counts,
    load_matrix,
    write_atomically,
    write_json,
)

NAME = "bounds"
ORDER = 20
HELP = "regret lower bound C* (exact LP, certified) and ECW-RMED's C^E*"

_MAX_PAIRS_SHOWN = 40
_INDENT_MAX_K = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
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
                        help="posterior credible interval (default) or parametric bootstrap")
    parser.add_argument("--draws", type=int, default=DEFAULT_DRAWS, metavar="N",
                        help=f"draws for --interval (default {DEFAULT_DRAWS})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --interval draws")
    parser.add_argument("--cstar-draws", default="auto", metavar="N|all|auto",
                        help="solve C* (an LP per draw: ~4 s at K = 100, ~45 s at K = 300) "
                             "on the first N draws only; the winner sets, flip risks and "
                             "C^E* use every draw.  auto (default): every draw when that "
                             f"takes <= ~{AUTO_CSTAR_SECONDS:.0f} s of one core, else that "
                             f"many but at least {MIN_CSTAR_DRAWS} (a rule of K: reproducible)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="processes for the C* draws (default: the CPUs, at most 8)")


def _cert_line(cert: dict) -> str:
    s = cert["status"]
    if s == "exact":
        return ("exact for the float-rounded LP (d_p = the binary64 d(mu_p, 1/2); primal, "
                "dual and objectives checked in rational arithmetic)")
    if s == "interval":
        return (f"certified within [{cert['lower_float']:.15g}, {cert['upper_float']:.15g}]"
                f" (width {cert.get('width', float('nan')):.2g}; floating-point duals "
                "verified exactly, no exact basis)")
    if s == "uncertified":
        return f"uncertified ({cert.get('reason') or 'certify=False'})"
    return f"FAILED: {cert.get('message', '')}"


#: A C*_{i1} above this is reported with the pair that drives it.
LARGE_VALUE = 1e8


def driving_pairs(M, lb) -> dict[int, dict]:
    """For every winner with C*_{i1} > :data:`LARGE_VALUE`: the pair contributing most.

    C*_{i1} = Σ r_ij q*_ij; a near-tie (gap |µ_ij − ½| ≲ 1e-6) makes q*_ij ~ 1/d(µ_ij, ½)
    ~ 1/(2 gap²) astronomically large.  Returns {winner: {pair, names, gap, share}}.
    """
    from ..theory.regret import regret_matrix

    r = np.triu(regret_matrix(M, "komiyama"), 1)
    out = {}
    for i1, v in lb.per_winner.items():
        if not v > LARGE_VALUE:
            continue
        contrib = r * lb.allocations[i1]
        a, b = (int(t) for t in np.unravel_index(np.argmax(contrib), contrib.shape))
        out[i1] = {"pair": [a, b], "names": [M.label(a), M.label(b)],
                   "gap": abs(float(M.values[a, b]) - 0.5),
                   "share": float(contrib[a, b] / contrib.sum())}
    return out


def _labels(M, arms) -> str:
    return "[" + ", ".join(M.label(i) for i in arms) + "]"


def format_bounds(M, lb, ecw) -> str:
    lines = [f"matrix      {M.name or '-'}  (K = {M.K}); regret convention komiyama; "
             "values are coefficients of log T"]
    if M.perturbed:
        lines.append(f"NOTE        ties broken by epsilon = {M.tie_epsilon:g}: "
                     "bounds hold for the perturbed matrix")
    lines.append("")
    lines.append(f"{'winner':>8} {'C*_i1':>14} {'C^E*_i1':>14}")
    for i1 in sorted(lb.per_winner):
        lines.append(f"{M.label(i1):>8} {lb.per_winner[i1]:>14.8g} {ecw.per_winner[i1]:>14.8g}")
    per_cert = lb.certificate.get("per_winner", {})
    for i1 in sorted(per_cert):
        c = per_cert[i1]
        if c["status"] == "interval" and len(per_cert) > 1 and i1 not in lb.winners:
            # only the minimising winner needs the exact route (certify_lower_bound)
            lines.append(f"NOTE        C*_{M.label(i1)} certified within "
                         f"[{c['lower_float']:.15g}, {c['upper_float']:.15g}] (not the minimum:"
                         " a verified lower bound above C* suffices)")
    for i1, drv in driving_pairs(M, lb).items():
        lines.append(f"NOTE        C*_{M.label(i1)} is driven by pair "
                     f"{M.pair_label(*drv['pair'])} (gap |mu - 1/2| = {drv['gap']:.3g}, "
                     f"{100 * drv['share']:.4g}% of it)")
    lines.append("")
    enc = lb.enclosure
    if enc:
        what = {"written": "as written", "float": "as stored (binary64)"}.get(
            enc["source"], "as written/stored")
        lines.append(f"C*   in [{enc['lower']!r}, {enc['upper']!r}]   certified enclosure of "
                     f"the true C* of the matrix {what} (relative width "
                     f"{enc['relative_width']:.2g})")
    if enc and enc.get("ecw"):
        lines.append(f"C^E* in [{enc['ecw']['lower']!r}, {enc['ecw']['upper']!r}]   certified "
                     f"enclosure (sorted threshold at the cost bounds, [K16] Theorem 5)")
    lines.append(f"C*   = {lb.value:.12g}   (minimising winner {_labels(M, lb.winners)}; "
                 "[K16] Theorem 2)")
    lines.append(f"C^E* = {ecw.value:.12g}   (minimising winner {_labels(M, ecw.winners)}; "
                 "[K16] Theorem 4-5)")
    lines.append(f"certificate: {_cert_line(lb.certificate)}")
    if lb.symbolic is not None:
        lines.append(f"closed form: C* = {lb.symbolic}")
    st = lb.stats
    lines.append(f"solver: {st['method']} via {st['backend']}, {st['lp_solves']} LP solve(s), "
                 f"{st['wall_time']:.3g} s")
    notes = {p["note"] for p in st.get("per_winner", {}).values() if p.get("note")}
    lines.extend(f"solver note: {n}" for n in sorted(notes))
    q = lb.allocation
    pairs = [(i, j, q[i, j]) for i in range(M.K) for j in range(i + 1, M.K) if q[i, j] > 1e-12]
    if M.K > 12:  # what matters first: the pairs that need the most duels
        pairs.sort(key=lambda p: -p[2])
    lines.append("")
    lines.append(f"optimal allocation of winner {M.label(lb.winners[0])} (N_ij / log T = q*_ij, "
                 "x = q*·d)" + (", largest first:" if M.K > 12 else ":"))
    shown = pairs[:_MAX_PAIRS_SHOWN]
    width = min(max([len(M.pair_label(i, j)) for i, j, _ in shown] + [10]), 70)
    lines.append(f"{'pair':>{width}} {'N_ij/log T':>14} {'x_ij':>10}")
    for i, j, v in shown:
        lines.append(f"{M.pair_label(i, j):>{width}} {v:>14.8g} {lb.evidence[i, j]:>10.6g}")
    if len(pairs) > _MAX_PAIRS_SHOWN:
        lines.append(f"  ... {len(pairs) - _MAX_PAIRS_SHOWN} more pairs (see --json)")
    tight = lb.tight[lb.winners[0]]
    lines.append(f"tight constraints: {len(tight)} (i1, i2, l, I, S), e.g.")
    for c in tight[:5]:
        lines.append(f"  i1={M.label(c.i1)} i2={M.label(c.i2)} l={c.l} "
                     f"I=[{clip([M.label(j) for j in c.I], width=40)}] "
                     f"S=[{clip([M.label(j) for j in c.S], width=40)}]")
    return "\n".join(lines)


def _named(M, lb) -> dict:
    """``lb.to_dict()`` plus the allocated pairs, arm names next to the indices (winners,
    tight constraints, allocated pairs; for named arms) and the pairs driving
    astronomically large values."""
    d = lb.to_dict()
    q = lb.allocation
    iu = np.argwhere(np.triu(q > 1e-12, 1))
    d["allocation_pairs"] = [{"pair": [int(a), int(b)], "q": float(q[a, b]),
                              "x": float(lb.evidence[a, b])} for a, b in iu]
    if M.arms is not None:
        d["winner_names"] = [M.label(i) for i in lb.winners]
        d["per_winner_names"] = {M.label(i): v for i, v in lb.per_winner.items()}
        for rec in d["allocation_pairs"]:
            rec["names"] = [M.label(i) for i in rec["pair"]]
        for recs in d["tight"].values():
            for c in recs:
                c["names"] = {"i1": M.label(c["i1"]), "i2": M.label(c["i2"]),
                              "I": [M.label(j) for j in c["I"]],
                              "S": [M.label(j) for j in c["S"]]}
    d["driving_pairs"] = {str(k): v for k, v in driving_pairs(M, lb).items()}
    return d


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


def _interval_options(args: argparse.Namespace) -> dict:
    """``lower_bound_interval`` keywords of the CLI options (with ``progress``, it says up
    front how many draws get C* and roughly how long that takes; the bar gives the pace)."""
    import os

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
    if workers < 1:
        raise DuelboundError(f"--workers must be >= 1, got {workers}")
    return {"draws": args.draws, "seed": args.seed, "cstar_draws": cstar, "workers": workers,
            "progress": True}


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
                               **_interval_options(args))
    if args.json:
        write_json({"plug_in": {"defined": False, "reason": reason,
                                "tied": [list(p) for p in tied],
                                "never_compared": [list(p) for p in never]},
                    "interval": rep.to_dict()}, indent=2 if C.K <= _INDENT_MAX_K else None)
    else:
        print(f"plug-in C*: undefined — {reason}:")
        if tied:
            named("tied", tied)
        if never:
            named("never compared", never)
        print("The posterior over the matrix is defined whatever the counts; its interval "
              "follows.\n(--break-ties EPS would perturb the tied pairs instead; every "
              "gap-dependent value\nwould then be an artefact of EPS.)\n")
        print(rep.render())
    return 0


def run(args: argparse.Namespace) -> int:
    if args.certificate:
        check_output_path(args.certificate, option="--certificate")
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
            return _interval_only(args, counts, tied, never)
    M = load_matrix(args)
    certify = True if args.symbolic and args.certify is None else args.certify
    if args.certificate:
        if certify is False:
            raise DuelboundError("--certificate needs a certificate: drop --no-certify")
        certify = certify or True
    lb = lower_bound(M, method=args.method, certify=certify, symbolic=args.symbolic,
                     progress=True, max_k=args.max_k or None)
    if args.certificate:
        if lb.proof is None:
            raise DuelboundError(f"no certificate written: {lb.certificate.get('message')}")
        _write_certificate(args.certificate, M, lb)
    ecw = ecw_bound(M)
    enc = (lb.enclosure or {}).get("ecw")
    if enc:  # the printed C^E* lies inside its printed bracket (the float value may not)
        ecw.per_winner = {i: min(max(v, enc["lower"]), enc["upper"]) if i in ecw.winners
                          else v for i, v in ecw.per_winner.items()}
        ecw.value = min(max(ecw.value, enc["lower"]), enc["upper"])
    rep = None
    if args.interval is not None:
        counts = load_counts(args)
        if counts is None:
            raise DuelboundError("--interval needs win counts: --counts FILE or "
                                 "--comparisons FILE")
        rep = lower_bound_interval(counts, level=args.interval, method=args.interval_method,
                                   break_ties=args.break_ties,
                                   **_interval_options(args))
    if args.json:
        out = {"matrix": M.to_dict(), "lower_bound": _named(M, lb), "ecw": ecw.to_dict()}
        if rep is not None:
            out["interval"] = rep.to_dict()
        # indented up to K = 16; above, one line: indenting the K×K allocations in pure
        # Python took longer than the LP (K = 64: 1.4 s against 0.5 s; K = 300: 11 s)
        write_json(out, indent=2 if M.K <= _INDENT_MAX_K else None)
    else:
        print(format_bounds(M, lb, ecw))
        if rep is not None:
            print()
            print(rep.render())
    return 0
