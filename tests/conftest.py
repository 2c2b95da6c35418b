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
SHARED_MATRICES = REPO.parent / "shared" / "matrices"


@pytest.fixture(scope="session")
def shared_matrices() -> Path:
    """Folder of the published reference matrices (../shared/matrices)."""
    if not SHARED_MATRICES.is_dir():
        pytest.fail(f"reference matrices not found at {SHARED_MATRICES}")
    return SHARED_MATRICES
