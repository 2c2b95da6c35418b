"""The dependency range: pyproject's caps, the import-time version check, the CI lock."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from duelbound.compat import SUPPORTED, require
from duelbound.theory.errors import DuelboundError

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package, version, ok", [
    ("pulp", "2.8.0", True), ("pulp", "3.3.2", True), ("pulp", "4.0.0", False),
    ("pulp", "2.7.0", False), ("numba", "0.68.1", True), ("numba", "0.69.0rc1", False),
    ("numba", "0.57.1", False), ("numba", "0.58.0", True)])
def test_require_accepts_exactly_the_supported_range(package, version, ok):
    if ok:
        require(package, version)
    else:
        with pytest.raises(DuelboundError, match=rf"needs {package}>="):
            require(package, version)


def test_installed_versions_are_supported():
    import numba
    import pulp

    require("pulp", pulp.__version__)
    require("numba", numba.__version__)


def test_pyproject_caps_match_the_import_time_check():
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for package, (low, high) in SUPPORTED.items():
        spec = next(d for d in deps if re.match(rf"{package}\b", d))
        assert f">={low}" in spec and f"<{high}" in spec, spec


def test_the_ci_lock_pins_every_runtime_dependency():
    lock = (REPO / "requirements" / "ci.lock").read_text()
    pinned = {m.lower() for m in re.findall(r"^([A-Za-z0-9_.-]+)==", lock, flags=re.M)}
    text = (REPO / "pyproject.toml").read_text()
    block = text[text.index("dependencies = ["):text.index("]", text.index("dependencies = ["))]
    names = re.findall(r'"([A-Za-z0-9_.-]+)[\[<>=]', block)
    assert names and {n.lower() for n in names} <= pinned
