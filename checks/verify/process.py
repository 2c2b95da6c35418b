"""The algorithm's process, as the judge starts, watches and ends it.

:class:`AlgorithmProcess` spawns :mod:`.child` in a fresh interpreter (inside the
sandbox of :mod:`.sandbox` where namespaces are available; its own process group,
resource limits of :class:`Limits`, stdout/stderr captured to files) and holds the
judge's end of its two pipes.  :class:`Watchdog` kills it when the run's time limit
passes or no message comes for the hang timeout.  At the end of every run the whole
process group is killed with SIGKILL, and every process that still carries the run's
token in its environment (a grandchild that called ``setsid``) is killed as well.
Its working folder is then removed by :func:`remove_tree` (iterative: no depth or path
length breaks it, and it never raises: what it could not remove is named in the run's
record, which is kept whatever cleanup does).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .sandbox import descendants, isolation, launch, run_memory
from .text import clean

__all__ = ["CHILD", "Limits", "AlgorithmProcess", "Watchdog", "remove_tree"]

CHILD = str(Path(__file__).with_name("child.py"))
#: Flags of every folder remove_tree opens: never through a symlink.
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Limits:
    """Per-run limits of the child process."""

    time_limit: float = 300.0        # wall seconds per run
    hang_timeout: float = 20.0       # seconds without a request
    startup_timeout: float | None = None  # import + factory (default max(3 hang, 60))
    cpu_seconds: int | None = None   # RLIMIT_CPU (default: time_limit + 5)
    mem_bytes: int = 4 << 30         # RLIMIT_AS
    output_bytes: int = 4 << 20      # RLIMIT_FSIZE: captured stdout/stderr
    isolation: str = "sandbox"       # or "process" (sandbox.isolation)
    #: time.monotonic() at which the verification's --budget ends: a run still running
    #: then is stopped like one at its time limit, its record kept (kind "budget")
    deadline: float | None = None


def _child_env(token: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL",
                                                           "TMPDIR", "USER", "VIRTUAL_ENV")}
    keep.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                NUMBA_NUM_THREADS="1", PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1",
                DUELBOUND_RUN_TOKEN=token)
    return keep


def _sys_path() -> list[str]:
    cwd = os.getcwd()
    return [cwd] + [p for p in sys.path if p and p != cwd]


def _tail(fh, n: int = 2000) -> str:
    try:
        fh.flush()
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - n))
        return clean(fh.read())   # the judged code's output: data, not terminal commands
    except (OSError, ValueError):
        return ""


def _clear_files(fd: int) -> tuple[list[str], int]:
    """Unlink every entry of the open folder ``fd`` but its folders: (the folders' names,
    the entries that could not be removed)."""
    folders, failed = [], 0
    with os.scandir(fd) as entries:
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    folders.append(e.name)
                else:
                    os.unlink(e.name, dir_fd=fd)
            except OSError:
                failed += 1
    return folders, failed


def _open_folder(name: str, parent: int) -> int | None:
    """The folder ``name`` of ``parent`` opened (made readable first if it was not), or
    None."""
    for attempt in range(2):
        try:
            return os.open(name, _DIR, dir_fd=parent)
        except PermissionError:
            if attempt == 0:
                try:
                    os.chmod(name, 0o700, dir_fd=parent)
                except OSError:
                    return None
        except OSError:
            return None
    return None


def remove_tree(path: str) -> str:
    """Remove the folder ``path`` and everything in it; never raises.

    Depth-first with an explicit stack and descriptors relative to their parent (no
    recursion, no path longer than one name: 3000 nested folders, or a path beyond
    PATH_MAX, are removed like any other), never through a symlink, and a folder made
    unreadable by the judged code is made readable first.

    Returns
    -------
    str
        ``""`` when ``path`` is gone, else one line saying what was left.
    """
    try:
        fd = os.open(path, _DIR)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"cannot open the working folder: {exc.strerror}"
    names: list[str] = []            # the folders from ``path`` down to ``fd``
    folders, failed = _clear_files(fd)
    pending = [folders]              # per level: its folders not visited yet
    try:
        while pending:
            if pending[-1]:
                name = pending[-1].pop()
                sub = _open_folder(name, fd)
                if sub is None:
                    failed += 1
                    continue
                os.close(fd)
                fd = sub
                names.append(name)
                folders, n = _clear_files(fd)
                pending.append(folders)
                failed += n
                continue
            pending.pop()
            if names:
                up = os.open("..", _DIR, dir_fd=fd)
                os.close(fd)
                fd = up
                try:
                    os.rmdir(names.pop(), dir_fd=fd)
                except OSError:
                    failed += 1
    except OSError as exc:
        failed += 1
        return f"working folder not removed: {exc.strerror} ({failed} entries left)"
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError as exc:
        return f"working folder not removed: {exc.strerror} ({failed} entries left)"
    return ""


def _token_holders(token: bytes, among: list[int] | None = None) -> list[int]:
    """Processes whose environment holds ``token``: every process, or those of ``among``
    (a sandbox's: a few files to read, not all of /proc, while it starts)."""
    me = os.getpid()
    pids = among if among is not None else [
        int(e.name) for e in os.scandir("/proc") if e.name.isdigit()]
    out = []
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if token in env:
            out.append(pid)
    return out


def _kill_leftovers(token: bytes, pgid: int, own: int | None = None) -> int:
    """SIGKILL the run's process group and every process carrying its token.

    Returns the number of processes other than the algorithm's own that were still
    alive (forked helpers, orphans that left the group with ``setsid``).
    """
    mine = {pgid, own}
    others = [p for p in _token_holders(token) if p not in mine]
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for _ in range(5):  # a process may fork while being killed: repeat
        found = _token_holders(token)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if not found:
            break
        others += [p for p in found if p not in mine and p not in others]
        time.sleep(0.01)
    return len(others)


def _pid_namespace(pid: int) -> str | None:
    """The PID namespace of ``pid`` (``"pid:[inode]"``), None when it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _namespace_members(ns: str) -> list[int]:
    """Every process of the PID namespace ``ns``, as the judge numbers them."""
    return [int(e.name) for e in os.scandir("/proc")
            if e.name.isdigit() and _pid_namespace(int(e.name)) == ns]


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _proc_state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"


def _proc_cpu(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


class AlgorithmProcess:
    """The spawned child process and the judge's end of its pipes."""

    def __init__(self, cfg: dict[str, Any], limits: Limits, hidden: Sequence[str] = ()):
        self.token = secrets.token_hex(16)
        req_r, req_w = os.pipe()     # child -> judge: requests and messages
        resp_r, resp_w = os.pipe()   # judge -> child: answers
        self.req_r, self.resp_w = req_r, resp_w
        cpu = limits.cpu_seconds or int(limits.time_limit + 5)
        cfg = dict(cfg, req=req_w, resp=resp_r, mem_bytes=int(limits.mem_bytes),
                   cpu_seconds=int(cpu), fsize_bytes=int(limits.output_bytes),
                   sys_path=_sys_path())
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        # a fresh, empty working folder per run, removed afterwards: nothing a run writes
        # there (or in the sandbox's private /tmp) reaches the next run
        self.workdir = tempfile.mkdtemp(prefix="duelbound-run-")
        self.isolation = isolation(limits.isolation)
        self.memory_limit, self.peak_memory = int(limits.mem_bytes), 0
        argv = [sys.executable, "-P", "-s", CHILD, json.dumps(cfg)]
        env = _child_env(self.token)
        pass_fds: tuple[int, ...] = (req_w, resp_r)
        start = None
        if self.isolation.namespaces:   # the sandbox's command, copies and descriptors
            start = launch(cfg, env=env, memory_bytes=limits.mem_bytes, hidden=hidden)
            argv, env, pass_fds = start.argv, start.env, (*pass_fds, *start.fds)
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, cwd=self.workdir,
            stdin=subprocess.DEVNULL, stdout=self.out, stderr=self.err,
            pass_fds=pass_fds, close_fds=True,
            # its own process group (setpgid); the sandbox adds a new session inside
            # (no controlling terminal).  Without a sandbox no new session: with the
            # kernel's autogroup scheduling a new session is a new scheduling group, which
            # made every duel's round trip 3-4x slower on a loaded machine (measured)
            process_group=0, env=env,
            preexec_fn=start.preexec if start is not None else None)
        for fd in (req_w, resp_r):
            os.close(fd)
        if start is not None:
            start.close()
        self.status: int | None = None
        self.rusage: Any = None
        self.killed = 0
        self.inner: int | None = None  # the algorithm's process inside the sandbox
        self.namespace: str | None = None  # its PID namespace ...
        self.reaper: int | None = None     # ... and that namespace's init (bubblewrap)
        self.early: list[int] | None = None  # survivors counted when it said DONE
        self.trailing = 0    # bytes on the request pipe after the conversation (finish)
        self.cleanup = ""    # what removing the working folder left (finish)
        if self.isolation.namespaces:
            # bubblewrap execs the interpreter within milliseconds, tens of milliseconds
            # before the user's code can run (and fork): its first token holder is it
            end = time.monotonic() + 5.0
            while (self.inner is None and time.monotonic() < end
                   and _proc_state(self.proc.pid) not in ("Z", "?")):  # alive, not reaped
                self.target_pid()
                if self.inner is None:
                    time.sleep(0.001)
        self.lock = threading.Lock()

    def target_pid(self) -> int:
        """The algorithm's own process: the first process of the run's token inside the
        sandbox (bubblewrap execs it before it can fork), else the process the judge
        started."""
        if self.isolation.namespaces:
            if self.inner is None:
                holders = _token_holders(self.token.encode(), descendants(self.proc.pid))
                if holders:
                    self.inner = min(holders)
                    self.namespace = _pid_namespace(self.inner)
                    self.reaper = _parent(self.inner)
            if self.inner is not None:
                return self.inner
        return self.proc.pid

    def survivors(self) -> list[int]:
        """Processes of the run other than the algorithm's own that are running now: in a
        sandbox every member of its PID namespace (whatever its environment: an
        ``execve`` with an empty one drops the token) but the algorithm and the reaper."""
        if self.namespace is None:
            return []
        return [p for p in _namespace_members(self.namespace)
                if p not in (self.inner, self.reaper)]

    def over_memory(self) -> bool:
        """True when the whole sandboxed run — its processes, the memfds they hold and
        its tmpfs — holds more than the run's memory limit (:func:`.sandbox.run_memory`,
        sampled by the watchdog; the peak is kept in :attr:`peak_memory`)."""
        if self.reaper is None:
            return False
        self.peak_memory = max(self.peak_memory, run_memory(self.reaper, self.memory_limit))
        return self.peak_memory > self.memory_limit

    def never_started(self) -> bool:
        """True when the sandbox failed before the algorithm's interpreter ran (a failure
        of the judge's machine, not of the algorithm)."""
        return self.isolation.namespaces and self.inner is None

    def _end_namespace(self) -> None:
        # SIGKILL to a PID namespace's init makes the kernel kill every member
        if self.reaper is not None and _pid_namespace(self.reaper) == self.namespace:
            try:
                os.kill(self.reaper, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def kill(self) -> None:
        """SIGKILL the run: its namespace, group and token holders (ends the judge's
        blocking read)."""
        with self.lock:
            early = len(self.survivors())
            self._end_namespace()
            self.killed += max(early, _kill_leftovers(self.token.encode(), self.proc.pid,
                                                      self.inner))

    def poll(self) -> bool:
        """True once the child has exited (reaped, with its resource usage)."""
        if self.status is not None:
            return True
        try:
            pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
        except ChildProcessError:
            self.status = 0
            return True
        if pid == 0:
            return False
        self.status, self.rusage = status, ru
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return True

    def read(self, n: int) -> bytes:
        """Exactly n bytes, or fewer at end of file."""
        buf = b""
        while len(buf) < n:
            chunk = os.read(self.req_r, n - len(buf))
            if not chunk:
                break
            buf += chunk
        return buf

    def _unread(self) -> int:
        """Bytes left unread on the request pipe once the process is gone (the judge stops
        reading at DONE: anything written after it is counted here, up to 64 KiB)."""
        n = 0
        try:
            os.set_blocking(self.req_r, False)
            while n < 1 << 16:
                chunk = os.read(self.req_r, 1 << 16)
                if not chunk:
                    break
                n += len(chunk)
        except OSError:   # BlockingIOError: a writer is still holding the pipe, empty
            pass
        return n

    def finish(self, grace: float = 0.0) -> tuple[str, float, int, str, str]:
        """End the run: wait up to ``grace`` seconds for the process to exit, kill what is
        left, reap it, read its output tails, count the bytes it wrote after its last
        message (:attr:`trailing`) and remove its working folder (:attr:`cleanup`: what
        could not be removed).  Never raises for what the judged code left behind."""
        # In a sandbox the kernel ends every process of the PID namespace with the
        # algorithm's own: count the ones it started that are still running now, at the
        # end of its run, before they go (leaving helpers behind is still reported).
        early = self.early if self.early is not None else self.survivors()
        if self.isolation.namespaces:
            grace = max(grace, 0.5)   # bubblewrap passes the algorithm's exit status on
        end = time.monotonic() + grace
        while grace and not self.poll() and time.monotonic() < end:
            time.sleep(0.002)
        late = self.survivors()
        self._end_namespace()
        killed = max(len(early), len(late), _kill_leftovers(
            self.token.encode(), self.proc.pid, self.inner)) + self.killed
        if self.status is None:
            try:
                _, self.status, self.rusage = os.wait4(self.proc.pid, 0)
                self.proc.returncode = os.waitstatus_to_exitcode(self.status)
            except ChildProcessError:
                self.status = 0
        cpu = (self.rusage.ru_utime + self.rusage.ru_stime) if self.rusage else float("nan")
        if os.WIFSIGNALED(self.status):
            sig = os.WTERMSIG(self.status)
            try:
                exit_status = f"signal {signal.Signals(sig).name}"
            except ValueError:
                exit_status = f"signal {sig}"
        else:
            exit_status = f"exit code {os.WEXITSTATUS(self.status)}"
        out, err = _tail(self.out), _tail(self.err)
        for fh in (self.out, self.err):
            fh.close()
        self.trailing = self._unread()
        try:
            self.cleanup = remove_tree(self.workdir)
        except Exception as exc:  # noqa: BLE001 — cleanup never loses the run's record
            self.cleanup = f"working folder not removed: {type(exc).__name__}: {exc}"
        for fd in (self.req_r, self.resp_w):
            try:
                os.close(fd)
            except OSError:
                pass
        return exit_status, cpu, killed, out, err


class Watchdog(threading.Thread):
    """Kills the child when the run's time limit passes, the verification's budget ends
    (``budget``: a ``time.monotonic()``) or no message comes for ``hang`` seconds
    (``startup`` before READY); records why."""

    def __init__(self, ch: AlgorithmProcess, deadline: float, hang: float, startup: float,
                 budget: float | None = None):
        super().__init__(daemon=True)
        self.ch, self.deadline, self.hang, self.startup = ch, deadline, hang, startup
        self.budget = float("inf") if budget is None else budget
        self.count = [0]          # messages seen (the judge's loop increments it)
        self.ready = [False]
        self.kind: str | None = None
        self.cpu = float("nan")
        self.stop = threading.Event()

    def run(self) -> None:
        seen, since = -1, time.monotonic()
        while not self.stop.wait(0.1):
            now = time.monotonic()
            if self.count[0] != seen:
                seen, since = self.count[0], now
            limit = self.hang if self.ready[0] else self.startup
            if now > self.deadline:
                self.kind = "timeout"
            elif now > self.budget:
                self.kind = "budget"
            elif now - since > limit:
                state = _proc_state(self.ch.target_pid())
                self.kind = ("stopped" if state in ("T", "t") else
                             "hang" if self.ready[0] else "startup")
            elif self.ch.over_memory():
                self.kind = "memory"
            if self.kind:
                self.cpu = _proc_cpu(self.ch.target_pid())
                self.ch.kill()
                return


