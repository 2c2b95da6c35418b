"""Operating-system isolation of the code that ``duelbound verify`` judges.

The judge runs every algorithm run in a child process.  Where Linux namespaces can be
created, the child runs inside a `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (the tool Flatpak uses; one small setuid-free binary, Debian package
``bubblewrap``) built by :func:`sandbox_argv`:

* new PID, mount, network, IPC, UTS and cgroup namespaces (``--unshare-all``; a user
  namespace as well when the judge is not root): the child sees only its own processes
  (not the judge's command line, hence not the matrix paths or seeds), has no network,
  and every process it starts dies with the namespace when the run ends
  (``--die-with-parent``: the kernel kills a PID namespace's members when its init dies);
* a file system made of read-only binds of the system folders, the Python installation
  and the user's code only, a fresh private ``/tmp`` (tmpfs) and a fresh empty working
  folder per run, removed afterwards: no view of the suite's matrix files or of the
  caller's other files, no way to leave anything for the next run;
* a new session (``--new-session``, ``setsid``): no controlling terminal, so no
  ``/dev/tty`` and no ``TIOCSTI`` keystroke injection into the user's shell; stdin is
  ``/dev/null``; all capabilities dropped.

Where namespaces are unavailable (no bubblewrap, macOS, a locked-down container that
forbids them) the run falls back to process isolation (own process group, resource
limits, a fresh temporary working folder) and the report says which level judged it
(:class:`Isolation`).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["BUBBLEWRAP", "PROCESS", "Isolation", "isolation", "package_roots", "python_paths",
           "sandbox_argv", "user_code_roots"]

BUBBLEWRAP = "namespaces (bubblewrap)"
PROCESS = "process"

#: System folders bound read-only into the sandbox (those that exist; symlinks kept as
#: symlinks, as on merged-/usr systems where /bin -> usr/bin).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


@dataclass(frozen=True)
class Isolation:
    """How a run was isolated.

    Attributes
    ----------
    level : str
        ``"namespaces (bubblewrap)"`` or ``"process"``.
    reason : str
        Why the stronger level was not used (empty when it was).
    """

    level: str
    reason: str = ""

    @property
    def namespaces(self) -> bool:
        return self.level == BUBBLEWRAP

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        return self.level + (f" ({self.reason})" if self.reason else "")


def _bind_args(paths: Iterable[str], flag: str = "--ro-bind") -> list[str]:
    args: list[str] = []
    seen: set[str] = set()
    for p in paths:
        if not p or p in seen or not os.path.lexists(p):
            continue
        seen.add(p)
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        else:
            args += [flag, p, p]
    return args


def _pth_folders(site_dirs: Iterable[str]) -> list[str]:
    """Folders that ``*.pth`` files of the environment add to ``sys.path`` (editable
    installs of other packages); the judge's other ``sys.path`` entries (a caller's
    project folder) are not exposed."""
    out = []
    for folder in site_dirs:
        try:
            names = [n for n in os.listdir(folder) if n.endswith(".pth")]
        except OSError:
            continue
        for name in names:
            try:
                lines = Path(folder, name).read_text(errors="replace").splitlines()
            except OSError:
                continue
            out += [ln.strip() for ln in lines
                    if ln.strip() and not ln.startswith(("#", "import")) and
                    os.path.isabs(ln.strip()) and os.path.isdir(ln.strip())]
    return out


def python_paths(extra: Iterable[str] = ()) -> list[str]:
    """Folders the child's interpreter needs: prefixes, stdlib, site-packages (with the
    folders their ``*.pth`` files add), and ``extra``.

    Parameters
    ----------
    extra : iterable of str
        Further folders to expose read-only (the user's code).

    Returns
    -------
    list of str
        Absolute, de-duplicated, outermost-first paths (a folder inside an already listed
        one is dropped: binding it again would hide nothing and cost a mount).
    """
    cand = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable))}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            cand.add(path)
    cand.update(_pth_folders(cand))
    cand.update(os.path.abspath(p) for p in extra)
    real = sorted({os.path.realpath(p) for p in cand} | {os.path.abspath(p) for p in cand})
    out: list[str] = []
    for p in real:
        if p in ("/", "") or any(p.startswith(q.rstrip("/") + "/") or p == q for q in out):
            continue
        if any(p == d or p.startswith(d + "/") for d in SYSTEM_DIRS):
            continue  # under a system folder that is bound anyway
        out.append(p)
    return out


def sandbox_argv(argv: Sequence[str], *, workdir: str, readonly: Iterable[str] = (),
                 hidden: Iterable[str] = (), env: Mapping[str, str] | None = None
                 ) -> list[str]:
    """``argv`` wrapped in a bubblewrap sandbox (see the module docstring).

    Parameters
    ----------
    argv : sequence of str
        The command to run inside (absolute interpreter path first).
    workdir : str
        A fresh, empty folder of the judge's, bound read-write as the child's working
        folder ``/sandbox`` (the judge removes it after the run).
    readonly : iterable of str
        Folders to expose read-only at the same path (Python, the user's code).
    hidden : iterable of str
        Files inside those folders to show empty (the suite's matrix files).
    env : mapping, optional
        The child's whole environment (everything else is cleared).
    """
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--hostname", "sandbox"]
    args += _bind_args(d for d in SYSTEM_DIRS)
    # the private /tmp first: binds made after it stay visible inside it (a virtual
    # environment or the user's code may live under /tmp)
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    readonly = list(readonly)
    args += _bind_args(readonly)
    for path in hidden:
        path = os.path.realpath(path)
        if os.path.isfile(path) and any(path.startswith(r.rstrip("/") + "/")
                                        for r in map(os.path.realpath, readonly)):
            args += ["--ro-bind", "/dev/null", path]
    args += ["--bind", workdir, "/sandbox", "--chdir", "/sandbox", "--clearenv"]
    for key, value in (env or {}).items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]


@functools.lru_cache(maxsize=1)
def isolation() -> Isolation:
    """The strongest isolation this machine allows (probed once per process).

    Setting ``DUELBOUND_SANDBOX=process`` forces process isolation (for comparisons).
    """
    if os.environ.get("DUELBOUND_SANDBOX", "").lower() == "process":
        return Isolation(PROCESS, "DUELBOUND_SANDBOX=process")
    if not sys.platform.startswith("linux"):
        return Isolation(PROCESS, f"no Linux namespaces on {sys.platform}")
    if shutil.which("bwrap") is None:
        return Isolation(PROCESS, "bubblewrap (bwrap) is not installed")
    probe = sandbox_argv([os.path.realpath(sys.executable), "-S", "-c", "pass"],
                         workdir="/tmp", readonly=python_paths())
    try:
        res = subprocess.run(probe, capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Isolation(PROCESS, f"bubblewrap failed to start: {exc}")
    if res.returncode != 0:
        why = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[-1]
        return Isolation(PROCESS, f"namespaces not available here: {why}")
    return Isolation(BUBBLEWRAP)


def user_code_roots(spec_module: str, search: Sequence[str]) -> list[str]:
    """The user's code, found without importing it: the Python modules and packages of
    the folder that holds the top-level module of ``spec_module``.

    Parameters
    ----------
    spec_module : str
        Dotted module name, e.g. ``"mypkg.algos"``.
    search : sequence of str
        The folders the child will search (its ``sys.path``, the caller's working folder
        first).

    Returns
    -------
    list of str
        The first match (module file or package folder, a namespace package too) and
        the ``*.py`` files and package folders (with ``__init__.py``) beside it, so that
        ``algo.py`` may import its ``helpers.py``; nothing else of that folder (data
        files, matrices, reports) is shown.  Empty when no folder of ``search`` holds the
        module (it is then installed in the environment).
    """
    top = spec_module.split(".")[0]
    for folder in search:
        base = Path(folder)
        named = [p for p in (base / top, base / f"{top}.py") if p.exists()]
        if named:   # the module itself (a namespace package too), and its neighbours
            return sorted({str(p.resolve()) for p in [*named, *base.iterdir()]
                           if p in named or (p.suffix == ".py" and p.is_file())
                           or (p.is_dir() and (p / "__init__.py").is_file())})
    return []


def package_roots() -> list[str]:
    """duelbound's own folders (the child script lives there; an editable install maps
    ``duelbound.theory`` etc. onto folders outside site-packages)."""
    out = []
    for name in ("duelbound", "duelbound.theory", "duelbound.solvers", "duelbound.checks"):
        spec = importlib.util.find_spec(name)  # locates without importing the solvers
        if spec is not None and spec.submodule_search_locations:
            out += [str(Path(p).resolve()) for p in spec.submodule_search_locations]
    return out
