"""numba's cache is keyed to the sources (tests/conftest.py): a stale compiled function
cannot survive a change of any module it may call."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from conftest import REPO, numba_cache_dir


def test_the_tests_compile_into_a_folder_keyed_by_the_sources():
    """numba uses the keyed folder conftest set at start-up (the sources' hash then: a file
    saved during the run does not move the cache of the running session)."""
    import numba

    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert Path(numba.config.CACHE_DIR) == folder
    assert folder.parent == Path(os.environ["DUELBOUND_NUMBA_CACHE_ROOT"])
    assert re.fullmatch(r"duelbound-numba-\d+-[0-9a-f]{16}", folder.name)


def test_a_compiled_function_is_cached_there():
    import numba

    from duelbound.checks.simulate.algorithms.common import log_guard

    assert log_guard(10.0) == max(2.302585092994046, 1.0)  # log 10 > 1
    assert list(Path(numba.config.CACHE_DIR).rglob("*.nbi")), "no cache index written"


def test_the_key_follows_every_source(tmp_path):
    """Editing a callee in another module, or adding a module, gives a new folder; the same
    sources give the same folder (the cache is reused)."""
    for folder in ("theory", "solvers", "checks"):
        shutil.copytree(REPO / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    key = numba_cache_dir(tmp_path, "/cache")
    assert key.parent == Path("/cache") and key == numba_cache_dir(tmp_path, "/cache")
    kl = tmp_path / "theory" / "kl.py"
    kl.write_text(kl.read_text() + "\n# changed\n")
    changed = numba_cache_dir(tmp_path, "/cache")
    assert changed != key
    (tmp_path / "checks" / "new_module.py").write_text("")
    assert numba_cache_dir(tmp_path, "/cache") not in (key, changed)
