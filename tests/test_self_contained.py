"""The repository stands on its own: nothing in it reads or cites a path outside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Folders that are not part of the repository's content.
_SKIP = {".git", ".venv", ".ci/venv", "build", "dist", ".pytest_cache", ".hypothesis",
         ".ruff_cache", "__pycache__"}
_TEXT = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".json", ".yml", ".yaml", ".sh",
         ".tex", ".bib", ".csv", ""}

# A reference to the parent of the repository, or to material only developers have.
# Spelled in pieces so that this file does not itself name what it forbids.
_SIBLING = "sha" + "red"      # the developers' folder beside the checkout
_NOTES = "S" + "PEC"          # their internal math notes
_OUTSIDE = re.compile(
    rf"\.\./{_SIBLING}|(?<![\w.]){_SIBLING}/(?:matrices|seeds|{_NOTES})|{_NOTES}\.md"
    rf"|{_NOTES}\s*§|\b{_NOTES}\b"
    r"|parents\[[2-9]\]|REPO(?:_ROOT)?\.parent\b|\.\./\.\./")


def _files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.split()
        paths = [REPO / p for p in out]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        paths = [p for p in REPO.rglob("*") if p.is_file()]
    keep = []
    for p in paths:
        rel = p.relative_to(REPO)
        if any(part in _SKIP for part in rel.parts) or p.suffix not in _TEXT:
            continue
        if p.is_file() and p.name != Path(__file__).name:
            keep.append(p)
    return keep


def test_there_are_files_to_scan():
    names = {p.name for p in _files()}
    assert {"pyproject.toml", "README.md", "conftest.py", "run"} <= names


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_reference_outside_the_repository(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    hits = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            if _OUTSIDE.search(line)]
    assert not hits, f"{path.relative_to(REPO)} refers outside the repository: {hits[:5]}"


def test_the_scan_catches_what_it_should():
    for bad in (f"open('../{_SIBLING}/matrices/x.txt')", f"see {_NOTES} §4",
                "Path(__file__).parents[2]",
                "REPO.parent / 'x'"):
        assert _OUTSIDE.search(bad), bad
    for good in ("shared by the solvers", "parents[1]", "Komiyama et al. (2016), Eq. (3)"):
        assert not _OUTSIDE.search(good), good
