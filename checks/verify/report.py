"""What ``duelbound verify`` reports: :class:`VerifyReport` of :class:`MatrixReport`.

Both are keyword-only dataclasses built once, at the end of a verification, from the
judge's records (:class:`.record.JudgedRun`) and the checks of :mod:`.verdicts`; they
render themselves as a text table (:meth:`VerifyReport.table`) and as JSON-ready
dicts (``to_dict``).  Text that came from the algorithm's process (exception messages
quoted in a check's message, an environment error) reaches the table only through
:func:`_child_text`.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field, fields
from typing import Any

from .judge import arm_relabeling
from .record import JudgedRun
from .text import clean
from .verdicts import Check, worst

__all__ = ["EXIT_CODES", "MatrixReport", "VerifyReport", "condorcet_reasons", "reasons",
           "cut_by_budget", "not_judged"]

#: Exit codes of ``duelbound verify`` (and :attr:`VerifyReport.exit_code`).
EXIT_CODES = {"PASS": 0, "WARN": 1, "FAIL": 1, "ERROR": 2, "INCONCLUSIVE": 3}
#: Width of the table's rules.
WIDTH = 90


def _child_text(s: str) -> str:
    """A string that may hold text from the algorithm's process, as the table prints it.

    The one place where such text is rendered for the terminal (check messages quote
    exception messages; an environment error quotes the sandbox's stderr): escaped
    (:func:`.text.clean`) down to one line, so that it can neither act on the terminal nor
    start a row of its own (a forged "overall: PASS").
    """
    return clean(s, newlines=False, limit=20000)


@dataclass(frozen=True, kw_only=True)
class MatrixReport:
    """Runs and checks on one matrix.

    Attributes
    ----------
    name, K, sha256 :
        The matrix: its name, number of arms and content hash.
    runs : list of JudgedRun
        The algorithm's runs at the horizon judged.
    checks : list of Check
        The checks of :mod:`.verdicts`, protocol first.
    reference_runs : list of JudgedRun
        The reference algorithm's runs (with ``reference``).
    condorcet_winner, copeland_winners, arms :
        The matrix's winners and arm names.
    twin : JudgedRun or None
        The replay of run 0 (determinism).
    horizon : int
        The T of the runs judged (sequential horizons: 4T, 16T, ...).
    horizons_tried : list of int
        Every horizon run on this matrix.
    borda_winner : int or None
        The arm with the largest row sum of the matrix (the Borda winner).
    """

    name: str
    K: int
    sha256: str
    runs: list[JudgedRun]
    checks: list[Check]
    reference_runs: list[JudgedRun] = field(default_factory=list)
    condorcet_winner: int | None = None
    copeland_winners: list[int] = field(default_factory=list)
    arms: list[str] | None = None
    twin: JudgedRun | None = None
    horizon: int = 0
    horizons_tried: list[int] = field(default_factory=list)
    borda_winner: int | None = None

    @property
    def condorcet(self) -> bool:
        return self.condorcet_winner is not None

    @property
    def verdict(self) -> str:
        return worst(c.verdict for c in self.checks)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "K": self.K, "sha256": self.sha256, "verdict": self.verdict,
                "horizon": self.horizon, "horizons_tried": self.horizons_tried,
                "condorcet_winner": self.condorcet_winner,
                "copeland_winners": self.copeland_winners, "arms": self.arms,
                "borda_winner": self.borda_winner,
                "checks": [c.to_dict() for c in self.checks],
                "runs": [r.to_dict() for r in self.runs],
                "twin": self.twin.to_dict() if self.twin else None,
                "reference_runs": [r.to_dict() for r in self.reference_runs]}

    def rows(self, T: int) -> list[str]:
        """The table's lines of this matrix (``T``: the horizon asked for)."""
        tag = f"{self.name}{' (CW)' if self.condorcet else ''}"
        if self.horizon and self.horizon != T:
            tag += f" T={self.horizon:.0e}".replace("e+0", "e")
        return [f"{tag:<20} {c.name:<18} {c.verdict:<12} {_child_text(c.message)}"
                for c in self.checks]


@dataclass(frozen=True, kw_only=True)
class VerifyReport:
    """Result of :func:`duelbound.checks.verify.verify_algorithm`.

    Attributes
    ----------
    algorithm, protocol : str
        What was judged and the protocol it spoke (``"bundled"`` for a bundled one).
    T, runs, seed : int
        Horizon, runs per matrix and the seed of the algorithm's runs.
    reference : str or None
    claimed_coefficient : float or None
    matrices : list of MatrixReport
    wall_time : float
        Seconds for the whole verification.
    budget_exhausted : bool
        Runs were left out when the wall-clock budget ran out.
    environment_seed : int or None
        The master seed of the environments (``--replay``).
    suite_checks : list of Check
        Suite-level checks (the pooled reference comparison).
    reasons : list of str
        Diagnoses over the suite (:func:`condorcet_reasons`).
    environment_error : dict or None
        The judge's machine failed (exit code 2), not the algorithm.
    isolation : str
        How the runs were isolated.
    interrupted : str or None
        ``"SIGINT"`` / ``"SIGTERM"``: a partial report.
    budget : float or None
        The wall-clock budget in seconds (``--budget``).
    not_judged : list of str
        What the budget left unjudged, one line per matrix and stage
        (:func:`not_judged`); when it is not empty the verdict is never PASS.
    """

    algorithm: str
    protocol: str
    T: int
    runs: int
    seed: int
    reference: str | None
    claimed_coefficient: float | None
    matrices: list[MatrixReport]
    wall_time: float
    budget_exhausted: bool = False
    environment_seed: int | None = None
    suite_checks: list[Check] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    environment_error: dict[str, Any] | None = None
    isolation: str = ""
    interrupted: str | None = None
    budget: float | None = None
    not_judged: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """The worst verdict; INCONCLUSIVE instead of PASS when something was not judged."""
        v = worst([m.verdict for m in self.matrices] + [c.verdict for c in self.suite_checks])
        return "INCONCLUSIVE" if v == "PASS" and self.not_judged else v

    @property
    def exit_code(self) -> int:
        """0 PASS, 1 WARN or FAIL, 2 environment error, 3 INCONCLUSIVE (nothing worse);
        130 / 143 when interrupted by SIGINT / SIGTERM (128 + the signal's number)."""
        if self.interrupted is not None:
            return 128 + int(signal.Signals[self.interrupted])
        if self.environment_error is not None:
            return EXIT_CODES["ERROR"]
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name not in ("matrices", "suite_checks")}
        out["verdict"] = self.verdict
        out["exit_code"] = self.exit_code
        out["suite_checks"] = [c.to_dict() for c in self.suite_checks]
        out["matrices"] = [m.to_dict() for m in self.matrices]
        return out

    def table(self) -> str:
        """Plain-text table: one line per (matrix, check), then the reasons."""
        head = f"{'matrix':<20} {'check':<18} {'verdict':<12} statistic"
        lines = [f"verify {self.algorithm} (protocol {self.protocol}, T = {self.T}, "
                 f"runs = {self.runs}, seed = {self.seed}, environment seed = "
                 f"{self.environment_seed})", f"isolation: {self.isolation}", head,
                 "-" * WIDTH]
        for m in self.matrices:
            lines += m.rows(self.T)
        for c in self.suite_checks:
            lines.append(f"{'(suite)':<20} {c.name:<18} {c.verdict:<12} "
                         f"{_child_text(c.message)}")
        lines.append("-" * WIDTH)
        lines.append("(CW): the matrix has a Condorcet winner; T=...: decided at a larger "
                     "horizon (undecided at the one before, re-run within --extend-budget)")
        if self.environment_error:
            lines.append(f"environment error (not the algorithm): "
                         f"{_child_text(str(self.environment_error.get('message', '')))}")
        for r in self.reasons:
            lines.append(f"reason: {r}")
        if self.budget_exhausted:
            lines.append(f"budget: the wall-clock budget of {self.budget:g} s was reached; "
                         "verdicts are on what was judged, never PASS on less than asked")
        lines += [f"not judged: {line}" for line in self.not_judged]
        tail = ", budget reached" if self.budget_exhausted else ""
        if self.interrupted:
            tail += f", INTERRUPTED by {self.interrupted}: partial report"
        lines.append(f"overall: {self.verdict}  (exit code {self.exit_code}; took "
                     f"{self.wall_time:.1f} s{tail})")
        return "\n".join(lines)


def _consistency(m: MatrixReport) -> Check | None:
    return next((c for c in m.checks if c.name == "consistency"), None)


def _verdict(m: MatrixReport) -> str | None:
    c = _consistency(m)
    return None if c is None else c.verdict


def _winner_last_runs(m: MatrixReport) -> list[bool]:
    """Per run: was a Copeland winner the algorithm's last arm (K − 1)?  Under the run's
    secret relabeling (rebuilt from its environment seed) when it was relabeled."""
    out = []
    for r in m.runs:
        if r.relabeled and r.environment_seed is not None:
            perm = arm_relabeling(r.environment_seed, m.K)   # algorithm's a -> matrix's perm[a]
            out.append(int(perm[m.K - 1]) in m.copeland_winners)
        else:
            out.append(m.K - 1 in m.copeland_winners)
    return out


#: Matrix structures a reason can name: (label, test on a MatrixReport).
STRUCTURES = (
    ("without a Condorcet winner", lambda m: not m.condorcet),
    ("with several Copeland winners", lambda m: len(m.copeland_winners) > 1),
    ("whose Borda winner is no Copeland winner",
     lambda m: m.borda_winner is not None and m.borda_winner not in m.copeland_winners),
)


def reasons(reports: list[MatrixReport]) -> list[str]:
    """Diagnoses over the suite that are true of the consistency WARN/FAILs: the matrix
    structure every failing matrix shares (:data:`STRUCTURES`, said only when every
    failing matrix has it), the runs that fail being exactly those with a Copeland winner
    at the algorithm's last index, linear regret in a share of the runs, and "behaves like
    a Condorcet algorithm" only when every failure is on a matrix without a Condorcet
    winner, every Condorcet matrix PASSed and no matrix without one did."""
    bad = [m for m in reports if _verdict(m) in ("FAIL", "WARN")]
    if not bad:
        return []
    return (_structure_reasons(bad, reports) + _winner_last_reason(bad)
            + _share_reason(bad) + _condorcet_reason(bad, reports))


def _structure_reasons(bad: list[MatrixReport], reports: list[MatrixReport]) -> list[str]:
    """Each structure of :data:`STRUCTURES` that every failing matrix has."""
    names = ", ".join(m.name for m in bad)
    out = []
    for label, has in STRUCTURES:
        if all(has(m) for m in bad):
            fine = [m.name for m in reports if has(m) and _verdict(m) == "PASS"]
            out.append(f"every consistency failure ({names}) is on a matrix {label}"
                       + (f"; passed on {', '.join(fine)}, which is one too" if fine else ""))
    return out


def _condorcet_reason(bad: list[MatrixReport], reports: list[MatrixReport]) -> list[str]:
    """"Behaves like a Condorcet algorithm": every failure without a Condorcet winner,
    every Condorcet matrix PASS, no matrix without a Condorcet winner PASS."""
    condorcet = [m for m in reports if m.condorcet]
    if any(m.condorcet for m in bad) or not condorcet or \
            any(_verdict(m) != "PASS" for m in condorcet) or \
            any(_verdict(m) == "PASS" for m in reports if not m.condorcet):
        return []
    return ["consistent only on matrices with a Condorcet winner ("
            + ", ".join(m.name for m in condorcet) + "), linear on "
            + ", ".join(m.name for m in bad)
            + ": behaves like a Condorcet algorithm (e.g. RUCB, RMED1), not a Copeland one"]


def _winner_last_reason(bad: list[MatrixReport]) -> list[str]:
    """The runs inconsistent on their own are exactly those whose Copeland winner was the
    algorithm's last arm (in every failing matrix with such runs)."""
    hits = []
    for m in bad:
        c = _consistency(m)
        flagged = set((c.statistic.get("inconsistent_runs") or []) if c else [])
        last = _winner_last_runs(m)
        if not flagged or flagged != {k for k, w in enumerate(last) if w}:
            return []
        hits.append(f"{m.name} runs {', '.join(map(str, sorted(flagged)))}")
    return [f"the runs that fail are exactly those where a Copeland winner was the "
            f"algorithm's last arm, K − 1 ({'; '.join(hits)}): an index bug?"] if hits else []


def _share_reason(bad: list[MatrixReport]) -> list[str]:
    parts = []
    for m in bad:
        c = _consistency(m)
        if c is not None and c.rule in ("linear-in-share", "share-undecided"):
            runs = c.statistic.get("inconsistent_runs") or []
            parts.append(f"{m.name}: runs {', '.join(map(str, runs))} of {len(m.runs)}")
    return [f"linear in a share of the runs ({'; '.join(parts)}): each of those runs spent "
            "at least half of its late duels on pairs it had already resolved, or stopped "
            "learning too early (starved)"] if parts else []


#: The name the driver calls (the Condorcet diagnosis is one of :func:`reasons`).
condorcet_reasons = reasons


_ROLES = {"user": "run", "ref": "reference run", "twin": "replay"}


def _budget_runs(results: dict[tuple, JudgedRun], mi: int) -> list[tuple[tuple, JudgedRun]]:
    return sorted(((k, r) for k, r in results.items()
                   if k[1] == mi and r.error and r.error.get("kind") == "budget"),
                  key=lambda kr: (list(_ROLES).index(kr[0][0]), kr[0][2]))


def cut_by_budget(results: dict[tuple, JudgedRun], mi: int) -> bool:
    """Did the budget stop or skip a run of matrix ``mi`` among ``results``?"""
    return bool(_budget_runs(results, mi))


def not_judged(names: list[str], todo: list[int], results: dict[tuple, JudgedRun],
               horizon: int, previous: dict[int, MatrixReport]) -> list[str]:
    """One line per matrix of a stage (``todo`` at ``horizon``) whose runs the budget cut
    or never started: which runs, after how many duels; and, when the matrix was judged
    at an earlier stage (``previous``), that the earlier report stands."""
    out = []
    for mi in todo:
        hit = _budget_runs(results, mi)
        if not hit:
            continue
        cut = [f"{_ROLES[k[0]]} {k[2]} after {r.steps}" for k, r in hit if r.steps]
        none = [f"{_ROLES[k[0]]} {k[2]}" for k, r in hit if not r.steps]
        parts = ([f"{', '.join(cut)} of {horizon} duels cut"] if cut else []) + \
            ([f"{', '.join(none)} with no duel judged"] if none else [])
        kept = f"; the report at T = {previous[mi].horizon} stands" if mi in previous else ""
        out.append(f"{names[mi]} at T = {horizon}: {'; '.join(parts)}{kept}")
    return out
