"""The report of C* and C^E* for one matrix: what ``duelbound bounds`` prints, as an object.

:func:`bounds_report` is the front door (it solves C* ([K16] Theorem 2) and C^E* ([K16]
Theorems 4-5) and, with win counts, their interval); :class:`BoundsReport` renders itself
as text (:meth:`~BoundsReport.render`) and as JSON (:meth:`~BoundsReport.to_dict`), so the
command line only parses and prints.

Examples
--------
>>> from duelbound.theory import datasets
>>> from duelbound.solvers.bounds_report import bounds_report
>>> rep = bounds_report(datasets.load("cyclic"), certify=False)
>>> round(rep.lower_bound.value, 6), rep.to_dict()["lower_bound"]["winners"]
(27.548665, [0])
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..theory.matrix import PreferenceMatrix
from ..theory.regret import regret_matrix
from ..theory.text import clip
from .cstar import LowerBoundResult, lower_bound
from .ecw import ECWBoundResult, ecw_bound

__all__ = ["BoundsReport", "bounds_report", "driving_pairs", "LARGE_VALUE", "symbolic_lines"]

#: A C*_{i1} above this is reported with the pair that drives it.
LARGE_VALUE = 1e8
#: Allocated pairs listed in the text (all of them are in :meth:`BoundsReport.to_dict`).
MAX_PAIRS_SHOWN = 40
#: Width of the wrapped closed form.
WIDTH = 100


def driving_pairs(M: PreferenceMatrix, lb: LowerBoundResult) -> dict[int, dict]:
    """For every winner with C*_{i1} > :data:`LARGE_VALUE`: the pair contributing most.

    C*_{i1} = Σ r_ij q*_ij; a near-tie (gap |µ_ij − ½| ≲ 1e-6) makes q*_ij ~ 1/d(µ_ij, ½)
    ~ 1/(2 gap²) astronomically large.  Returns {winner: {pair, names, gap, share}}.
    """
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


def symbolic_lines(expr: Any, width: int = WIDTH) -> list[str]:
    """The closed form of C* on lines of about ``width`` characters: one line per term of
    the sum, a long term wrapped at its spaces (a K = 30 closed form was one line of
    19 187 characters; the JSON keeps it whole)."""
    terms = list(expr.as_ordered_terms()) if getattr(expr, "is_Add", False) else [expr]
    lines = ["closed form: C* ="]
    for k, term in enumerate(terms):
        text = str(term)
        sign = "  "
        if k and text.startswith("-"):
            sign, text = "- ", text[1:]
        elif k:
            sign = "+ "
        lines += textwrap.wrap(text, width, initial_indent="    " + sign,
                               subsequent_indent="        ", break_on_hyphens=False,
                               break_long_words=False)
    return lines


def _cert_line(cert: dict) -> str:
    s = cert["status"]
    if s == "exact":
        return ("exact for the float-rounded LP (d_p = the binary64 d(mu_p, 1/2); primal, "
                "dual and objectives checked in rational arithmetic)")
    if s == "enclosed":
        return (f"certified within [{cert['lower_float']:.15g}, {cert['upper_float']:.15g}]"
                f" (width {cert.get('width', float('nan')):.2g}; floating-point duals "
                "verified exactly, no exact basis)")
    if s == "uncertified":
        return f"uncertified ({cert.get('reason') or 'certify=False'})"
    return f"FAILED: {cert.get('message', '')}"


@dataclass
class BoundsReport:
    """C* and C^E* of one matrix, with the interval from win counts when asked for.

    Attributes
    ----------
    matrix : PreferenceMatrix
    lower_bound : LowerBoundResult
        C* ([K16] Theorem 2), its allocation, certificate and enclosure.
    ecw : ECWBoundResult
        C^E* ([K16] Theorems 4-5); inside its certified bracket when there is one.
    interval : IntervalReport or None
        Intervals from win counts (:func:`~.interval.lower_bound_interval`).
    """

    matrix: PreferenceMatrix
    lower_bound: LowerBoundResult
    ecw: ECWBoundResult
    interval: Any = None

    #: Above this K the JSON is one line (see :meth:`json_indent`).
    INDENT_MAX_K = 16

    @property
    def json_indent(self) -> int | None:
        """2 up to K = 16; above, None (one line): indenting the K×K allocations in pure
        Python took longer than the LP (K = 64: 1.4 s against 0.5 s; K = 300: 11 s)."""
        return 2 if self.matrix.K <= self.INDENT_MAX_K else None

    def to_dict(self) -> dict[str, Any]:
        """``matrix``, ``lower_bound`` (with the allocated pairs, arm names and driving
        pairs), ``ecw`` and, with counts, ``interval``."""
        out = {"matrix": self.matrix.to_dict(), "lower_bound": self._named(),
               "ecw": self.ecw.to_dict()}
        if self.interval is not None:
            out["interval"] = self.interval.to_dict()
        return out

    def _named(self) -> dict[str, Any]:
        """``lower_bound.to_dict()`` plus the allocated pairs, arm names next to the indices
        (for named arms) and the pairs driving astronomically large values."""
        M, lb = self.matrix, self.lower_bound
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

    def render(self) -> str:
        """The text report: values per winner, notes, enclosures, certificate, solver, the
        optimal allocation (largest first above K = 12) and tight constraints; then the
        interval's report when there is one."""
        parts = [self._head(), self._values(), self._allocation()]
        if self.interval is not None:
            parts.append("\n" + self.interval.render())
        return "\n".join(parts)

    def _head(self) -> str:
        M, lb, ecw = self.matrix, self.lower_bound, self.ecw
        lines = [f"matrix      {M.name or '-'}  (K = {M.K}); regret convention komiyama; "
                 "values are coefficients of log T"]
        if M.perturbed:
            lines.append(f"NOTE        ties broken by epsilon = {M.tie_epsilon:g}: "
                         "bounds hold for the perturbed matrix")
        lines += ["", f"{'winner':>8} {'C*_i1':>14} {'C^E*_i1':>14}"]
        lines += [f"{M.label(i1):>8} {lb.per_winner[i1]:>14.8g} {ecw.per_winner[i1]:>14.8g}"
                  for i1 in sorted(lb.per_winner)]
        per_cert = lb.certificate.get("per_winner", {})
        for i1 in sorted(per_cert):
            c = per_cert[i1]
            if c["status"] == "enclosed" and len(per_cert) > 1 and i1 not in lb.winners:
                # only the minimising winner needs the exact route (certify_lower_bound)
                lines.append(f"NOTE        C*_{M.label(i1)} certified within "
                             f"[{c['lower_float']:.15g}, {c['upper_float']:.15g}] (not the "
                             "minimum: a verified lower bound above C* suffices)")
        for i1, drv in driving_pairs(M, lb).items():
            lines.append(f"NOTE        C*_{M.label(i1)} is driven by pair "
                         f"{M.pair_label(*drv['pair'])} (gap |mu - 1/2| = {drv['gap']:.3g}, "
                         f"{100 * drv['share']:.4g}% of it)")
        return "\n".join(lines)

    def _values(self) -> str:
        M, lb, ecw = self.matrix, self.lower_bound, self.ecw
        lines = [""]
        enc = lb.enclosure
        if enc:
            what = {"written": "as written", "float": "as stored (binary64)"}.get(
                enc["source"], "as written/stored")
            lines.append(f"C*   in [{enc['lower']!r}, {enc['upper']!r}]   certified enclosure "
                         f"of the true C* of the matrix {what} (relative width "
                         f"{enc['relative_width']:.2g})")
        if enc and enc.get("ecw"):
            lines.append(f"C^E* in [{enc['ecw']['lower']!r}, {enc['ecw']['upper']!r}]   "
                         "certified enclosure (sorted threshold at the cost bounds, [K16] "
                         "Theorem 5)")
        lines.append(f"C*   = {lb.value:.12g}   (minimising winner {_labels(M, lb.winners)}; "
                     "[K16] Theorem 2)")
        lines.append(f"C^E* = {ecw.value:.12g}   (minimising winner {_labels(M, ecw.winners)}; "
                     "[K16] Theorem 4-5)")
        lines.append(f"certificate: {_cert_line(lb.certificate)}")
        if lb.symbolic is not None:
            lines += symbolic_lines(lb.symbolic)
        st = lb.stats
        lines.append(f"solver: {st['method']} via {st['backend']}, {st['lp_solves']} LP "
                     f"solve(s), {st['wall_time']:.3g} s")
        notes = {p["note"] for p in st.get("per_winner", {}).values() if p.get("note")}
        lines.extend(f"solver note: {n}" for n in sorted(notes))
        return "\n".join(lines)

    def _allocation(self) -> str:
        M, lb = self.matrix, self.lower_bound
        q = lb.allocation
        pairs = [(i, j, q[i, j]) for i in range(M.K) for j in range(i + 1, M.K)
                 if q[i, j] > 1e-12]
        if M.K > 12:  # what matters first: the pairs that need the most duels
            pairs.sort(key=lambda p: -p[2])
        lines = ["", f"optimal allocation of winner {M.label(lb.winners[0])} (N_ij / log T = "
                 "q*_ij, x = q*·d)" + (", largest first:" if M.K > 12 else ":")]
        shown = pairs[:MAX_PAIRS_SHOWN]
        width = min(max([len(M.pair_label(i, j)) for i, j, _ in shown] + [10]), 70)
        lines.append(f"{'pair':>{width}} {'N_ij/log T':>14} {'x_ij':>10}")
        for i, j, v in shown:
            lines.append(f"{M.pair_label(i, j):>{width}} {v:>14.8g} {lb.evidence[i, j]:>10.6g}")
        if len(pairs) > MAX_PAIRS_SHOWN:
            lines.append(f"  ... {len(pairs) - MAX_PAIRS_SHOWN} more pairs (see --json)")
        tight = lb.tight[lb.winners[0]]
        lines.append(f"tight constraints: {len(tight)} (i1, i2, l, I, S), e.g.")
        for c in tight[:5]:
            lines.append(f"  i1={M.label(c.i1)} i2={M.label(c.i2)} l={c.l} "
                         f"I=[{clip([M.label(j) for j in c.I], width=40)}] "
                         f"S=[{clip([M.label(j) for j in c.S], width=40)}]")
        return "\n".join(lines)


def _labels(M: PreferenceMatrix, arms: list[int]) -> str:
    return "[" + ", ".join(M.label(i) for i in arms) + "]"


def bounds_report(M: PreferenceMatrix, *, method: str = "auto", certify: Any = None,
                  symbolic: bool = False, max_k: int | None = None, progress: bool = False,
                  interval: dict[str, Any] | None = None) -> BoundsReport:
    """C* and C^E* of ``M`` as a :class:`BoundsReport` (the front door of ``bounds``).

    Parameters
    ----------
    M : PreferenceMatrix
    method, certify, symbolic, max_k, progress
        As in :func:`~.cstar.lower_bound` (``symbolic`` asks for a certificate when
        ``certify`` is None: the closed form is read off the exact basis).
    interval : dict, optional
        Keywords of :func:`~.interval.lower_bound_interval` with its ``counts``: the
        interval of C* and C^E* from those win counts, added to the report.

    Returns
    -------
    BoundsReport
        With a certified enclosure of C^E*, its value is clamped into it, so the printed
        C^E* lies inside its printed bracket (the float value may lie just outside).
    """
    if symbolic and certify is None:
        certify = True
    lb = lower_bound(M, method=method, certify=certify, symbolic=symbolic,
                     progress=progress, max_k=max_k)
    # with a certificate, C^E* is clamped into the brackets its enclosure holds already
    # (the numbers of ecw_bound(M), computed once)
    ecw = ecw_bound(M, enclose=False)
    if lb.proof.enclosure is not None:
        ecw.clamp_to_enclosure(M, lb.proof.enclosure.ecw)
    rep = None
    if interval is not None:
        from .interval import lower_bound_interval

        rep = lower_bound_interval(**interval)
    return BoundsReport(M, lb, ecw, rep)
