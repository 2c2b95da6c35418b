"""Ratchets: file length and cyclomatic complexity can only go down.

No library file above :data:`MAX_LINES` lines, no function above :data:`MAX_CC` (radon's
cyclomatic complexity) anywhere and above :data:`STRICT_CC` in the counts, interval,
certificate and CLI paths (:data:`STRICT`).  Today's offenders are listed with today's
number; the test fails when a new one appears, when a listed one grew, and when a listed one
got better and its entry was not lowered or removed — so the lists only shrink.
``python tests/test_ratchets.py`` prints the current offenders in the lists' format.
"""

from __future__ import annotations

import pytest
from radon.visitors import ComplexityVisitor
from test_architecture import MODULES

MAX_LINES = 800
MAX_CC = 30
STRICT_CC = 20
#: Module-name prefixes held to :data:`STRICT_CC`: the counts, interval, certificate and
#: CLI paths (issue 33), and the verify rooms (issue 29).
STRICT = ("duelbound.theory.counts", "duelbound.theory.logs", "duelbound.theory.posterior",
          "duelbound.theory.win_counts", "duelbound.solvers.interval",
          "duelbound.solvers.draws", "duelbound.solvers.divergence",
          "duelbound.solvers.sensitivity", "duelbound.solvers.estimates",
          "duelbound.solvers.posterior_table", "duelbound.solvers.certificate",
          "duelbound.solvers.constraint_check", "duelbound.solvers.exact_basis",
          "duelbound.solvers.compact_dual", "duelbound.solvers.enclosure",
          "duelbound.checks.proof", "duelbound.checks.verify", "duelbound.cli")

#: module -> lines today (above MAX_LINES).
LONG_FILES: dict[str, int] = {}

#: (module, function) -> cyclomatic complexity today (above the module's limit).
COMPLEX_FUNCTIONS: dict[tuple[str, str], int] = {
    ("duelbound.checks.simulate.algorithms.ccb", "run_ccb_core"): 45,
    ("duelbound.checks.simulate.algorithms.dts", "choose"): 35,
    # 52 -> 54 with the lazy LP re-solve of CW-RMED (issue 31); splitting this numba loop
    # into helpers cost ECW-RMED 20-40 % of its duels/s (measured), so it stays one loop
    ("duelbound.checks.simulate.algorithms.rmed", "run_cw_rmed"): 54,
    ("duelbound.cli.sweep_report", "run"): 23,
    ("duelbound.solvers.exact_lp", "solve_exact"): 45,
    ("duelbound.theory.io", "parse_table_cells"): 55,
}


def _limit(mod: str) -> int:
    return STRICT_CC if mod.startswith(STRICT) else MAX_CC


def _blocks(code: str) -> list:
    """radon's top-level functions and classes of ``code`` (methods inside their class)."""
    visitor = ComplexityVisitor.from_code(code)
    return [*visitor.functions, *visitor.classes]


def _functions(blocks, prefix: str = ""):
    """(qualified name, complexity) of every function, method and closure in radon blocks."""
    for b in blocks:
        if hasattr(b, "methods"):  # a class
            yield from _functions(b.methods, f"{prefix}{b.name}.")
            continue
        name = f"{prefix}{b.name}"
        yield name, b.complexity
        yield from _functions(b.closures, f"{name}.<locals>.")


def long_files() -> dict[str, int]:
    lengths = {mod: len(path.read_text().splitlines()) for mod, path in MODULES.items()}
    return {mod: n for mod, n in sorted(lengths.items()) if n > MAX_LINES}


def complex_functions() -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for mod, path in sorted(MODULES.items()):
        for name, cc in _functions(_blocks(path.read_text())):
            if cc > _limit(mod):
                out[(mod, name)] = max(cc, out.get((mod, name), 0))
    return out


def _ratchet(now: dict, allowed: dict, what: str) -> None:
    new = {k: v for k, v in now.items() if k not in allowed}
    worse = {k: (allowed[k], v) for k, v in now.items() if k in allowed and v > allowed[k]}
    better = {k: (v, now.get(k)) for k, v in allowed.items() if now.get(k, 0) < v}
    assert not new, f"new {what} (split them): {new}"
    assert not worse, f"{what} grew (listed, now): {worse}"
    assert not better, (f"{what} got better (listed, now; None: no longer above the limit): "
                        f"{better}: lower or remove their entries")


def test_no_library_file_above_the_line_limit():
    _ratchet(long_files(), LONG_FILES, f"files above {MAX_LINES} lines")


def test_no_function_above_the_complexity_limit():
    _ratchet(complex_functions(), COMPLEX_FUNCTIONS,
             f"functions above complexity {MAX_CC} ({STRICT_CC} in {', '.join(STRICT)})")


@pytest.mark.parametrize("now, allowed, message", [
    ({"a": 900}, {}, "new"), ({"a": 900}, {"a": 850}, "grew"),
    ({"a": 820}, {"a": 850}, "got better"), ({}, {"a": 850}, "got better")])
def test_the_ratchet_fails_both_ways(now, allowed, message):
    with pytest.raises(AssertionError, match=message):
        _ratchet(now, allowed, "x")


def test_the_complexity_counter_sees_methods_and_closures():
    code = ("class A:\n    def m(self, x):\n        if x:\n            return 1\n        return 2\n"
            "def f(x):\n    def g(y):\n        return 1 if y else 2 if y > 1 else 3\n"
            "    return g(x)\n")
    # hand count: m has one `if` (2); g two conditional expressions (3); f none (1)
    assert dict(_functions(_blocks(code))) == {"A.m": 2, "f": 1, "f.<locals>.g": 3}


if __name__ == "__main__":
    print("LONG_FILES: dict[str, int] = {")
    for mod, n in long_files().items():
        print(f'    "{mod}": {n},')
    print("}\n\nCOMPLEX_FUNCTIONS: dict[tuple[str, str], int] = {")
    for (mod, name), cc in complex_functions().items():
        print(f'    ("{mod}", "{name}"): {cc},')
    print("}")
