"""Shared test fixtures: numba's cache keyed to the sources, fixed hypothesis profile
(derandomised in CI) and data paths."""

from __future__ import annotations

import hashlib
import itertools
import os
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
#: The folders whose sources numba compiles (``cache=True``) or inlines into compiled code.
NUMBA_SOURCES = ("theory", "solvers", "checks")


def numba_cache_dir(repo: Path = REPO, root: str | None = None) -> Path:
    """A numba cache folder named after a hash of every source numba may compile.

    numba keys a cached function on its own file's time stamp only: a compiled function
    that calls one from another module (the simulator's algorithms call
    ``algorithms/common.py`` and ``theory/kl.py``) keeps its stale machine code when only the
    callee changed.  A folder per content hash of all of ``theory/``, ``solvers/`` and
    ``checks/`` makes that impossible: any change starts a fresh cache.
    """
    digest = hashlib.sha256()
    for folder in NUMBA_SOURCES:
        for path in sorted((repo / folder).rglob("*.py")):
            digest.update(path.relative_to(repo).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    base = Path(root or tempfile.gettempdir())
    return base / f"duelbound-numba-{os.getuid() if hasattr(os, 'getuid') else 0}-" \
        f"{digest.hexdigest()[:16]}"


# Before anything imports numba (its config reads the variable once); child processes of
# the tests (the CLI, the judge, Dask workers) inherit it.  A NUMBA_CACHE_DIR set by the
# caller is the root of the keyed folder, not the folder itself.
_root = os.environ.get("DUELBOUND_NUMBA_CACHE_ROOT") or os.environ.get("NUMBA_CACHE_DIR")
os.environ["DUELBOUND_NUMBA_CACHE_ROOT"] = _root or tempfile.gettempdir()
os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_dir(REPO, os.environ["DUELBOUND_NUMBA_CACHE_ROOT"]))

# CI is reproducible: derandomize draws from a fixed seed per test.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def dataset_dir(tmp_path_factory) -> Path:
    """The bundled datasets written out as plain text matrix files, ``NAME.txt``.

    Tests that exercise file reading use these, so the suite needs nothing outside
    the repository.
    """
    from duelbound.theory import datasets

    folder = tmp_path_factory.mktemp("datasets")
    for name in datasets.names():
        d = datasets.get(name)
        lines = [f"# {d.title} [{d.citation}]"]
        lines += [" ".join(repr(v) for v in row) for row in d.rows]
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def no_cluster(monkeypatch):
    """Any attempt to start a Dask LocalCluster fails the test (a refusal must come first)."""
    import dask.distributed
    import distributed

    def refuse(*args, **kwargs):
        raise AssertionError("a Dask cluster was started")

    monkeypatch.setattr(dask.distributed, "LocalCluster", refuse)
    monkeypatch.setattr(distributed, "LocalCluster", refuse)


@pytest.fixture(autouse=True)
def _verdicts_at_the_stated_horizon(monkeypatch):
    """Tests judge at the T they state: the sequential-horizon extension (which re-runs
    undecided matrices at 4T, 16T, ... for up to 240 s) is off unless a test passes
    ``extend_budget`` itself (tests/test_harness.py does, to test it)."""
    from duelbound.checks.verify import harness

    monkeypatch.setattr(harness, "DEFAULT_EXTEND_BUDGET", 0.0)


@pytest.fixture(autouse=True)
def _pinned_environment_seed(request, monkeypatch):
    """Pin the judge's environment seed per test, so every verdict in the suite reproduces.

    The judge draws each verify's master environment seed from fresh secret entropy (judged
    code must not predict its duels), so a statistical verdict that is right with
    probability 0.99 fails CI about once in a hundred runs, and not reproducibly.  Here the
    seeds come from the test's node id and a counter instead: successive verifies within a
    test still get different seeds.  Tests marked ``secret_environment_seed`` keep the
    entropy.  Child processes (the CLI run as a subprocess) are not affected.
    """
    if request.node.get_closest_marker("secret_environment_seed"):
        return
    from duelbound.checks.verify import harness

    base = zlib.crc32(request.node.nodeid.encode()) << 20
    counter = itertools.count(1)
    monkeypatch.setattr(harness, "new_environment_seed", lambda: base + next(counter))
