"""The import graph of the installed package: ground floor, layers, no cycles, no private names.

Read with ``ast`` from the files of the installed ``duelbound`` (whatever the package-dir
mapping), every import counted — the ones inside functions too, so that a cycle cannot
hide behind a late import.  docs/architecture.md explains the rules.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import types
from pathlib import Path

import pytest

import duelbound
import duelbound.checks
import duelbound.solvers
import duelbound.theory

#: Function-level imports of duelbound modules are allowed only where they buy start-up
#: time: the command line (each subcommand imports what it runs), and these heavy
#: modules — the LP solvers (PuLP/HiGHS, flint), matplotlib, the numba-compiled simulator.
LAZY_OK = ("duelbound.solvers", "duelbound.theory.draw", "duelbound.checks.simulate")
#: The ground floor: root utilities every layer may use, importing no layer (and nothing
#: above the ground floor): errors, table renderers, plots, pandas frames, version checks,
#: a Dask client, the old names of moved modules.
GROUND = ("duelbound.errors", "duelbound.render", "duelbound.plots", "duelbound.frames",
          "duelbound.compat", "duelbound.cluster", "duelbound.moved")
LAZY_FROM_ANYWHERE = ("duelbound.cli",)
#: What each layer may import (docs/architecture.md): theory < solvers < checks < cli.
LAYERS = {"duelbound.theory": ("duelbound.solvers", "duelbound.checks", "duelbound.cli"),
          "duelbound.solvers": ("duelbound.checks", "duelbound.cli"),
          "duelbound.checks": ("duelbound.cli",)}


def _modules() -> dict[str, Path]:
    roots = {"duelbound": Path(duelbound.__file__).parent,
             "duelbound.theory": Path(duelbound.theory.__file__).parent,
             "duelbound.solvers": Path(duelbound.solvers.__file__).parent,
             "duelbound.checks": Path(duelbound.checks.__file__).parent}
    mods: dict[str, Path] = {}
    for pkg, folder in roots.items():
        for p in folder.rglob("*.py"):
            parts = list(p.relative_to(folder).with_suffix("").parts)
            if pkg == "duelbound" and parts[0] in ("theory", "solvers", "checks"):
                continue  # an installed tree nests them; counted under their own root
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join([pkg, *parts])] = p
    return mods


MODULES = _modules()


def _imports(mod: str) -> list[tuple[str, str, bool]]:
    """(imported module, imported name, inside a function) of every import in ``mod``."""
    path = MODULES[mod]
    tree = ast.parse(path.read_text())
    in_function = {id(n) for f in ast.walk(tree)
                   if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for n in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = mod.split(".")
                keep = len(parts) - node.level + (1 if path.name == "__init__.py" else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in MODULES else base
                out.append((target, alias.name, id(node) in in_function))
        elif isinstance(node, ast.Import):
            out += [(alias.name, "", id(node) in in_function) for alias in node.names]
    return [(t, n, lazy) for t, n, lazy in out if t.startswith("duelbound")]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for mod in MODULES:
        edges = set()
        for target, _, _ in _imports(mod):
            if target not in MODULES or target == mod:
                continue
            # a package's __init__ and its own submodules are one unit
            if target.startswith(mod + ".") and MODULES[mod].name == "__init__.py":
                continue
            if mod.startswith(target + ".") and MODULES[target].name == "__init__.py":
                continue
            edges.add(target)
        graph[mod] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_package_is_found():
    assert {"duelbound.theory.matrix", "duelbound.solvers.cstar",
            "duelbound.checks.verify.judge", "duelbound.cli"} <= set(MODULES)


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_cycle_detection_works():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_another_modules_private_names():
    bad = [(mod, target, name) for mod in MODULES for target, name, _ in _imports(mod)
           if name.startswith("_") and not name.startswith("__") and target != mod]
    assert bad == []


@pytest.mark.parametrize("layer, forbidden", list(LAYERS.items()))
def test_layers_import_only_downwards(layer, forbidden):
    bad = [(mod, target) for mod in MODULES if mod.startswith(layer + ".") or mod == layer
           for target, _, _ in _imports(mod) if target.startswith(forbidden)]
    assert bad == []


def test_function_level_imports_only_where_they_buy_start_up_time():
    bad = sorted({(mod, target) for mod in MODULES for target, _, lazy in _imports(mod)
                  if lazy and not mod.startswith(LAZY_FROM_ANYWHERE)
                  and not target.startswith(LAZY_OK)})
    assert bad == []


def _ground(mod: str) -> bool:
    return any(mod == g or mod.startswith(g + ".") for g in GROUND)


def test_the_ground_floor_exists():
    assert {"duelbound.errors", "duelbound.render", "duelbound.render.table",
            "duelbound.render.latex", "duelbound.plots", "duelbound.frames",
            "duelbound.compat"} <= set(MODULES)


def _ground_violations() -> list[tuple[str, str]]:
    return [(mod, target) for mod in MODULES if _ground(mod)
            for target, _, _ in _imports(mod) if not _ground(target)]


def test_the_ground_floor_imports_no_layer():
    """errors, render, plots, frames, compat import only each other: never theory, solvers,
    checks, cli, nor the package root (whose ``__init__`` imports theory)."""
    assert _ground_violations() == []


def test_the_ground_floor_rule_can_fail(tmp_path, monkeypatch):
    """A ground-floor module that imports theory (as frames.py did) is reported."""
    fake = tmp_path / "frames.py"
    fake.write_text("from .theory.errors import DuelboundError\n")
    monkeypatch.setitem(MODULES, "duelbound.frames", fake)
    assert _ground_violations() == [("duelbound.frames", "duelbound.theory.errors")]


#: Today's reads of another object's private attribute by name (``getattr(x, "_name")``,
#: ``hasattr``, ``setattr``), with the reason. The list can only shrink:
#: a new one fails, and so does an entry that is gone.
PRIVATE_ATTRIBUTE_EXCEPTIONS = {
    # the parsed counts cached on the argparse Namespace between two helpers of the CLI
    ("duelbound.cli.common", "_win_counts"),
}


def _private_attribute_reads(mod: str) -> set[tuple[str, str]]:
    tree = ast.parse(MODULES[mod].read_text())
    out = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)):
            name = node.args[1].value
            if name.startswith("_") and not name.startswith("__"):
                out.add((mod, name))
    return out


def test_no_module_reads_private_attributes_by_name():
    """``getattr(x, "_name")`` is the private-import rule's back door (a private attribute of
    another library or module, read by a string so no tool sees it)."""
    found = set().union(*(_private_attribute_reads(mod) for mod in MODULES))
    assert found - PRIVATE_ATTRIBUTE_EXCEPTIONS == set(), "new private attribute reads"
    assert PRIVATE_ATTRIBUTE_EXCEPTIONS - found == set(), \
        "fixed: remove these from PRIVATE_ATTRIBUTE_EXCEPTIONS"


# -- docs/architecture.md tells the truth ------------------------------------------------
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _front_doors() -> list[tuple[str, str, list[str], str]]:
    """(job, dotted path, argument names, result class) of every row of the front-door table."""
    text = ARCHITECTURE.read_text()
    table = text[text.index("## Front doors"):].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        m = re.fullmatch(r"\|\s*(.+?)\s*\|\s*`([\w.]+)\(([^)]*)\)`\s*\|\s*`(\w+)`\s*\|", line)
        if m:
            args = [a.strip() for a in m.group(3).split(",") if a.strip()]
            rows.append((m.group(1), m.group(2), args, m.group(4)))
    return rows


FRONT_DOORS = _front_doors()


def _resolve(dotted: str) -> object:
    """The object at ``dotted`` as a reader's code gets it: attributes first, a submodule
    imported only where its package has no such attribute (so ``duelbound.solvers.lower_bound``
    is the function, not the old module name that ``duelbound.moved`` keeps importable)."""
    first, *rest = dotted.split(".")
    obj: object = importlib.import_module(first)
    name = first
    for part in rest:
        name = f"{name}.{part}"
        obj = getattr(obj, part) if hasattr(obj, part) else importlib.import_module(name)
    return obj


def test_the_front_door_table_is_read():
    jobs = {job for job, _, _, _ in FRONT_DOORS}
    assert len(FRONT_DOORS) >= 10 and {"C*", "claims", "sweeps", "simulate"} <= jobs


@pytest.mark.parametrize("job, dotted, args, result", FRONT_DOORS,
                         ids=[d for _, d, _, _ in FRONT_DOORS])
def test_every_front_door_is_a_function_that_returns_its_result(job, dotted, args, result):
    """docs/architecture.md once named modules (``duelbound.solvers.cstar(M)``): calling them
    raised TypeError.  Every call of the table is a function, accepts the arguments shown
    (and needs no other), and says it returns the result named."""
    f = _resolve(dotted)
    assert not isinstance(f, types.ModuleType) and callable(f), f"{dotted} is not a function"
    sig = inspect.signature(f)
    sig.bind(*args)  # TypeError: the doc's arguments do not fit
    returns = sig.return_annotation
    assert result in (returns if isinstance(returns, str) else getattr(returns, "__name__", "")), \
        f"{dotted} returns {returns}, the doc says {result}"


#: Values for the arguments of the front doors cheap enough to run in the default suite.
def _cheap_arguments() -> dict[str, object]:
    from duelbound.theory import datasets

    M = datasets.load("cyclic")
    return {"M": M, "matrices": [M], "name": "ccb"}


@pytest.mark.parametrize("dotted, args, result",
                         [(d, a, r) for _, d, a, r in FRONT_DOORS
                          if a and set(a) <= {"M", "matrices", "name"}])
def test_the_cheap_front_doors_run(dotted, args, result):
    values = _cheap_arguments()
    out = _resolve(dotted)(*(values[a] for a in args))
    assert type(out).__name__ == result and hasattr(out, "to_dict")


def _rooms_block() -> str:
    text = ARCHITECTURE.read_text()
    start = text.index("```\nsrc/duelbound/")
    return text[start:text.index("```", start + 3)]


def test_every_module_is_in_the_room_lists():
    """The room lists of docs/architecture.md name every module file of the package."""
    block = _rooms_block()
    missing = sorted(mod for mod, path in MODULES.items()
                     if path.name != "__init__.py" and not re.search(
                         rf"(?<![\w/]){re.escape(path.name)}\b", block))
    assert missing == []


# -- errors never hide ---------------------------------------------------------------------
#: Broad handlers (bare ``except``, ``except Exception``/``BaseException``) that neither
#: re-raise nor say why on their line, as of today; the list can only shrink.
#: (module, enclosing function).
BLIND_EXCEPT_EXCEPTIONS: set[tuple[str, str]] = set()


def _blind_handlers(mod: str) -> set[tuple[str, str]]:
    source = MODULES[mod].read_text()
    lines = source.splitlines()
    out = set()

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{where}.{child.name}" if where else child.name)
                continue
            if isinstance(child, ast.ExceptHandler) and _blind(child, lines):
                out.add((mod, where or "<module>"))
            visit(child, where)

    visit(ast.parse(source), "")
    return out


def _blind(node: ast.ExceptHandler, lines: list[str]) -> bool:
    names = ([] if node.type is None else
             node.type.elts if isinstance(node.type, ast.Tuple) else [node.type])
    broad = node.type is None or any(
        isinstance(n, ast.Name) and n.id in ("Exception", "BaseException") for n in names)
    reraises = any(isinstance(n, ast.Raise) for n in ast.walk(node))
    return broad and not reraises and "#" not in lines[node.lineno - 1]


def test_no_blind_broad_except():
    """A broad ``except`` re-raises (after clean-up, or as a DuelboundError) or says on its
    line why catching everything is right there (e.g. the judge's boundary to user code)."""
    found = set().union(*(_blind_handlers(mod) for mod in MODULES))
    assert found - BLIND_EXCEPT_EXCEPTIONS == set(), "blind broad except"
    assert BLIND_EXCEPT_EXCEPTIONS - found == set(), "fixed: remove from the list"


def test_the_blind_except_scan_can_fail(tmp_path, monkeypatch):
    fake = tmp_path / "blind.py"
    fake.write_text("try:\n    x = 1\nexcept Exception:\n    x = 2\n"
                    "try:\n    x = 1\nexcept Exception:  # why\n    x = 2\n"
                    "def f():\n    try:\n        x = 1\n    except BaseException:\n        raise\n"
                    "def g():\n    try:\n        x = 1\n    except:\n        pass\n")
    monkeypatch.setitem(MODULES, "duelbound.blind", fake)
    assert _blind_handlers("duelbound.blind") == {("duelbound.blind", "<module>"),
                                                  ("duelbound.blind", "g")}
