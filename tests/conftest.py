"""Shared test fixtures: fixed hypothesis profile (derandomised in CI) and data paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# CI is reproducible: derandomize draws from a fixed seed per test.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]


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
