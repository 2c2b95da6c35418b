"""The trusted side of ``duelbound verify``: an environment user code cannot reach.

:func:`judge_run` starts the user's algorithm in a fresh interpreter
(:mod:`duelbound.checks.verify.child`, its own session and process group, resource
limits, stdout/stderr captured to files) and plays the environment for it: the child
sends the pairs it wants to duel, this process draws each outcome from a generator
seeded by a *secret* environment seed and answers with that outcome only.  The
preference matrix, the generator and the record of every duel (the requested pairs
and their outcomes) never leave this process; every statistic of a run is computed
from that record (:func:`trajectory`), never from anything else the child says.

Protocol (two pipes; chosen by measurement over a shared-memory mailbox, see
``benchmarks/bench_verify.py`` and docs/verification.md): the child writes each
request as 8 bytes (i, j) — little-endian int32 — and blocks on a 1-byte answer:
0 j won, 1 i won, 2 invalid request (out of range or not an int; recorded), 3 more
than T duels (recorded).  Markers in the i field announce a JSON text message
(exceptions, protocol detection), READY (module imported and factory built: the hang
clock starts) and DONE.  The judge reads with blocking reads; a watchdog thread
enforces the limits by killing the child's process group, which ends the read.

Limits per run (:class:`Limits`): wall time, CPU time (RLIMIT_CPU), address space
(RLIMIT_AS), output file size (RLIMIT_FSIZE), its own process group, and a hang
timeout (no request for
``hang_timeout`` seconds: a sleeping, looping or SIGSTOPped child).  At the end of
every run the whole process group is killed with SIGKILL and every process that
still carries the run's token in its environment (a grandchild that called
``setsid``) is killed as well.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...theory.matrix import PreferenceMatrix
from ...theory.regret import CONVENTIONS, regret_matrix
from .sandbox import (
    isolation,
    package_roots,
    python_paths,
    sandbox_argv,
    user_code_roots,
)

__all__ = ["Limits", "JudgedRun", "judge_run", "probe", "trajectory", "harden",
           "new_environment_seed", "arm_relabeling",
           "run_environment_seed", "PROTOCOL_ERRORS"]

DONE = -2147483648
TEXT = -2147483647
READY = -2147483646
BLOCK = 1 << 16
CHILD = str(Path(__file__).with_name("child.py"))

#: Error kinds that are the algorithm's fault (a protocol FAIL).  ``environment``
#: (ImportError, a removed NumPy alias inside a library) and ``usage`` are not.
PROTOCOL_ERRORS = ("exception", "invalid-index", "exceeded-T", "stopped-early", "crash",
                   "timeout", "startup", "hang", "stopped", "cpu-limit", "memory",
                   "corrupt")


@dataclass
class Limits:
    """Per-run limits of the child process."""

    time_limit: float = 300.0        # wall seconds per run
    hang_timeout: float = 20.0       # seconds without a request
    startup_timeout: float | None = None  # import + factory (default max(3 hang, 60))
    cpu_seconds: int | None = None   # RLIMIT_CPU (default: time_limit + 5)
    mem_bytes: int = 4 << 30         # RLIMIT_AS
    output_bytes: int = 4 << 20      # RLIMIT_FSIZE: captured stdout/stderr


@dataclass
class JudgedRun:
    """The record of one run, kept by the judge."""

    seed: int
    environment_seed: int
    T: int
    pairs: np.ndarray                       # (steps, 2) int32, valid duels in order
    outcomes: np.ndarray                    # (steps,) bool, True iff i won
    errors: list[dict[str, Any]] = field(default_factory=list)
    error_counts: dict[str, int] = field(default_factory=dict)
    environment_error: dict[str, Any] | None = None
    usage_error: dict[str, Any] | None = None
    wall_time: float = 0.0
    cpu_time: float = 0.0
    exit_status: str = ""
    killed_leftovers: int = 0
    stdout_tail: str = ""
    stderr_tail: str = ""
    protocol: str | None = None
    progress: dict[str, Any] = field(default_factory=dict)

    @property
    def steps(self) -> int:
        return int(self.pairs.shape[0])

    @property
    def ok(self) -> bool:
        return not self.errors and self.environment_error is None and \
            self.usage_error is None and self.steps == self.T

    @property
    def first_error(self) -> dict[str, Any] | None:
        return self.errors[0] if self.errors else None

    def sha256(self) -> str:
        return hashlib.sha256(np.ascontiguousarray(self.pairs, "<i4").tobytes()).hexdigest()


def harden() -> bool:
    """Make this (trusted) process non-dumpable: its /proc/PID/mem, maps and environ
    become unreadable to other processes of the same user, so an algorithm cannot read
    the matrix or the generator's state out of the judge's memory.  Linux only."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(4, 0, 0, 0, 0) == 0   # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        return False


def new_environment_seed() -> int:
    """Fresh secret entropy (``secrets``) for a verification's environments."""
    return secrets.randbits(63)


def run_environment_seed(master: int, matrix: int, run: int) -> int:
    """Environment seed of run ``run`` on matrix ``matrix`` under ``master``."""
    # shift the Python int: numpy < 2 refuses uint64 >> int (no safe common type)
    return int(np.random.SeedSequence([int(master), int(matrix), int(run), 7]
                                      ).generate_state(1, np.uint64)[0]) >> 1


def arm_relabeling(environment_seed: int, K: int) -> np.ndarray:
    """The secret relabeling of the arms for one run: the algorithm's arm ``a`` is the
    matrix's arm ``perm[a]``.

    Drawn from the run's secret environment seed (its own stream, independent of the
    outcomes), so a run is replayable with that seed and unpredictable without it: a
    plan written for the published matrices, a peek at a matrix file or a bug tied to an
    index (never dueling arm K - 1) no longer meets the winners where it expects them.
    """
    rng = np.random.default_rng(np.random.SeedSequence([int(environment_seed), 0x5EC2E7]))
    return rng.permutation(int(K))


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
        return fh.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def _token_holders(token: bytes) -> list[int]:
    me = os.getpid()
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if token in env:
            out.append(int(entry.name))
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


def _arguments_fd(args: Sequence[str]) -> int:
    """A readable descriptor holding ``args`` NUL-separated (bubblewrap's ``--args``)."""
    fd = os.memfd_create("duelbound-sandbox-args")   # Linux, as bubblewrap
    os.write(fd, b"\0".join(a.encode() for a in args) + b"\0")
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _Child:
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
        self.isolation = isolation()
        argv = [sys.executable, "-P", "-s", CHILD, json.dumps(cfg)]
        env = _child_env(self.token)
        pass_fds: tuple[int, ...] = (req_w, resp_r)
        args_fd = None
        if self.isolation.namespaces:
            if cfg.get("exec"):   # the program and the existing paths among its arguments
                code = [a for a in cfg["exec"] if os.path.isabs(a) and os.path.exists(a)]
            else:
                code = user_code_roots(str(cfg["spec"]).partition(":")[0], cfg["sys_path"])
            readonly = python_paths([*code, *package_roots()])
            env.update(HOME="/sandbox", TMPDIR="/tmp", NUMBA_CACHE_DIR="/tmp/numba")
            full = sandbox_argv(argv, workdir=self.workdir, readonly=readonly,
                                hidden=hidden, env=env)
            # bubblewrap's own options through a descriptor: its reaper's command line
            # (/proc/1/cmdline, readable in the sandbox) then names no path of the caller
            sep = full.index("--")
            args_fd = _arguments_fd(full[1:sep])
            argv = [full[0], "--args", str(args_fd), *full[sep:]]
            pass_fds = (*pass_fds, args_fd)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # bubblewrap's own
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, cwd=self.workdir,
            stdin=subprocess.DEVNULL, stdout=self.out, stderr=self.err,
            pass_fds=pass_fds, close_fds=True,
            # its own process group (setpgid); the sandbox adds a new session inside
            # (no controlling terminal).  Without a sandbox no new session: with the
            # kernel's autogroup scheduling a new session is a new scheduling group, which
            # made every duel's round trip 3-4x slower on a loaded machine (measured)
            process_group=0, env=env)
        for fd in (req_w, resp_r, args_fd):
            if fd is not None:
                os.close(fd)
        self.status: int | None = None
        self.rusage = None
        self.killed = 0
        self.inner: int | None = None  # the algorithm's process inside the sandbox
        self.namespace: str | None = None  # its PID namespace ...
        self.reaper: int | None = None     # ... and that namespace's init (bubblewrap)
        self.early: list[int] | None = None  # survivors counted when it said DONE
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
                holders = _token_holders(self.token.encode())
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

    def finish(self, grace: float = 0.0) -> tuple[str, float, int, str, str]:
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
        shutil.rmtree(self.workdir, ignore_errors=True)
        for fd in (self.req_r, self.resp_w):
            try:
                os.close(fd)
            except OSError:
                pass
        return exit_status, cpu, killed, out, err


class _Watchdog(threading.Thread):
    """Kills the child when the run's time limit passes or no message comes for
    ``hang`` seconds (``startup`` before READY); records why."""

    def __init__(self, ch: _Child, deadline: float, hang: float, startup: float):
        super().__init__(daemon=True)
        self.ch, self.deadline, self.hang, self.startup = ch, deadline, hang, startup
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
            elif now - since > limit:
                state = _proc_state(self.ch.target_pid())
                self.kind = ("stopped" if state in ("T", "t") else
                             "hang" if self.ready[0] else "startup")
            if self.kind:
                self.cpu = _proc_cpu(self.ch.target_pid())
                self.ch.kill()
                return


class _Stop(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _parse_text(raw: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def probe(spec: str, K: int, T: int, seed: int, limits: Limits | None = None) -> dict[str, Any]:
    """Load ``spec`` in a child, build ``factory(K, T, seed)`` and detect its protocol.

    Returns ``{"protocol": "select" | "duel" | None, "type": ...}`` or
    ``{"kind": ..., "message": ...}`` when loading or building failed.  The
    trusted process never imports the user's module.
    """
    limits = limits or Limits(time_limit=60.0, hang_timeout=60.0)
    rec = judge_run(spec, None, T, seed, 0, protocol="auto", limits=limits, probe=True)
    if rec.progress.get("probe"):
        return rec.progress["probe"]
    err = rec.usage_error or rec.environment_error or rec.first_error or {
        "kind": "crash", "message": f"the probe process died ({rec.exit_status}): "
                                    f"{rec.stderr_tail[-300:]}"}
    return {"kind": err.get("kind", "crash"), "message": err.get("message", "")}


def judge_run(spec: str, M: PreferenceMatrix | None, T: int, seed: int, environment_seed: int,
              *, protocol: str = "auto", limits: Limits | None = None,
              probe: bool = False, hidden: Sequence[str] = (), relabel: bool = True
              ) -> JudgedRun:
    """Play one run of the user's algorithm ``spec`` ("module:attr") on ``M``.

    Parameters
    ----------
    spec : str
        ``"package.module:factory"``, resolved in the child only.
    M : PreferenceMatrix
        The environment (never sent to the child; only K is).
    T, seed : int
        Horizon and the algorithm's own seed (given to ``factory(K, T, seed)``).
    environment_seed : int
        Seed of the environment's generator (secret: see :func:`new_environment_seed`).
    protocol : {"auto", "select", "duel"}
    limits : Limits, optional
    probe : bool
        Only import the module, build the factory and name its protocol.
    hidden : sequence of str
        Files the sandbox shows empty (the suite's matrix files).
    relabel : bool
        Present the arms under the secret relabeling :func:`arm_relabeling` (default).
        The record is kept in the matrix's labels either way.

    Returns
    -------
    JudgedRun
        The judge's own record: requested pairs, outcomes, protocol errors (each with
        its step and a count per kind), exit status, captured output tails.
    """
    from ..simulate.environment import make_rng

    limits = limits or Limits()
    K = M.K if M is not None else 2
    cfg = {"spec": spec, "K": int(K), "T": int(T), "seed": int(seed), "protocol": protocol,
           "probe": probe}
    if spec.startswith("exec:"):   # a program speaking the line protocol (harness.exec_spec)
        cfg["exec"] = json.loads(spec[5:])
    rng = make_rng(int(environment_seed))
    perm = (arm_relabeling(environment_seed, K) if relabel and M is not None
            else np.arange(K)).tolist()
    # the algorithm's (a, b) is the matrix's (perm[a], perm[b]): µ as it is presented
    mu = (M.values[np.ix_(perm, perm)].tolist() if M is not None else [[0.5] * K] * K)
    log = array("i")
    outs = bytearray()
    errors: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    env_error = usage_error = None
    probe_info = None
    hang = limits.hang_timeout

    def record(kind: str, step: int | None, message: str, **extra) -> None:
        counts[kind] = counts.get(kind, 0) + 1
        if len(errors) < 20:
            errors.append(dict(kind=kind, step=step, message=message, **extra))

    ch = _Child(cfg, limits, hidden)
    startup = limits.startup_timeout or max(3 * hang, 60.0)
    dog = _Watchdog(ch, time.monotonic() + limits.time_limit, hang, startup)
    dog.start()
    count = dog.count
    unpack = struct.Struct("<ii").unpack
    read, write, rfd, wfd = os.read, os.write, ch.req_r, ch.resp_w
    answers = (b"\x00", b"\x01", b"\x02", b"\x03")
    u: list[float] = []
    k = 0
    t = 0
    t_first = None
    done = False
    try:
        while True:
            msg8 = read(rfd, 8)
            if len(msg8) != 8:
                msg8 += ch.read(8 - len(msg8)) if msg8 else b""
                if len(msg8) != 8:
                    break                       # end of file: the child is gone
            count[0] += 1
            i, j = unpack(msg8)
            if 0 <= i < K and 0 <= j < K and t < T:
                if k == len(u):
                    u = rng.random(BLOCK).tolist()
                    k = 0
                code = 1 if u[k] < mu[i][j] else 0
                k += 1
                log.append(perm[i])
                log.append(perm[j])
                outs.append(code)
                t += 1
            elif i == READY:
                dog.ready[0] = True
                t_first = time.perf_counter()
                code = 0
            elif i == DONE:
                done = True
                code = 0
                ch.early = ch.survivors()  # before the answer lets it exit
            elif i == TEXT:
                msg = _parse_text(ch.read(j)) if 0 <= j <= 65536 else None
                code = 0
                if msg is None:
                    record("corrupt", t + 1, "unreadable message from the algorithm's process")
                    code = 2
                else:
                    kind = str(msg.get("kind", ""))
                    text = str(msg.get("message", ""))[:2000]
                    if kind == "probe":
                        probe_info = {"protocol": msg.get("protocol"),
                                      "type": str(msg.get("type", ""))}
                    elif kind == "non-int":
                        record("invalid-index", t + 1, text)
                        code = 2
                    elif kind in ("import", "usage"):
                        usage_error = dict(kind=kind, step=0, message=text)
                    else:
                        record("exception", t + 1 if kind == "exception" else None, text,
                               traceback=str(msg.get("traceback", ""))[-4000:])
            elif t >= T and 0 <= i < K and 0 <= j < K:
                record("exceeded-T", t + 1, f"duel #{t + 1} ({i}, {j}) requested with T = {T}")
                code = 3
            else:
                record("invalid-index", t + 1,
                       f"arm index out of range 0..{K - 1}: ({i}, {j}) at step {t + 1}")
                code = 2
            try:
                write(wfd, answers[code])
            except BrokenPipeError:
                break
            if done:
                break
    except OSError:
        pass
    except BaseException:
        # stopped from outside (SIGTERM to this worker, Ctrl-C): the algorithm's process
        # goes first, whatever happens to this one
        dog.stop.set()
        ch.kill()
        ch.finish()
        raise
    dog.stop.set()
    t_end = time.perf_counter()
    wall = t_end - ch.t0
    cpu_now = dog.cpu
    stop = None
    if dog.kind is not None:
        stop = _Stop(dog.kind, "")
    elif not done:
        stop = _Stop("crash", "")
    exit_status, cpu, killed, out, err = ch.finish(1.0 if done else 0.0)
    pairs = np.frombuffer(log.tobytes(), dtype=np.int32).reshape(-1, 2).copy()
    outcomes = np.frombuffer(bytes(outs), dtype=np.uint8).astype(bool)
    busy = t_end - t_first if t_first is not None else wall
    rate = t / busy if busy > 0 else 0.0
    progress = {"duels": t, "duels_per_s": rate, "startup_s": wall - busy,
                "relabeled": bool(relabel and M is not None),
                "isolation": ch.isolation.describe()}
    if probe_info is not None:
        progress["probe"] = probe_info
    if stop is not None and stop.kind == "crash" and ch.never_started():
        env_error = dict(kind="environment", step=0, message="the sandbox did not start: "
                         + (err.strip().splitlines() or [exit_status])[-1][:300])
        stop = None
    if stop is not None:
        progress["cpu_at_stop"] = cpu_now
        if stop.kind == "crash":
            low = "cpu-limit" if "SIGXCPU" in exit_status else (
                "memory" if "MemoryError" in err else "crash")
            record(low, t + 1, f"process died ({exit_status}) after {t} of {T} duels")
        elif stop.kind == "timeout":
            need = T / rate if rate > 0 else float("inf")
            feasible = int(rate * max(limits.time_limit - (wall - busy), 0.0))
            progress.update(time_limit=limits.time_limit, seconds_needed=need,
                            feasible_T=feasible)
            record("timeout", t + 1, f"time limit {limits.time_limit:g} s reached after {t} of "
                   f"{T} duels ({rate:.3g} duels/s; still making progress — too slow, not "
                   f"hung: T = {T} needs about {need:.3g} s, --T {feasible} fits the limit)")
        elif stop.kind == "startup":
            record("startup", 0, f"start-up limit {startup:g} s reached: importing the "
                   "module and building factory(K, T, seed) did not finish (no duel asked)")
        elif stop.kind == "stopped":
            record("stopped", t + 1, f"process stopped (SIGSTOP) after {t} of {T} duels")
        else:
            looping = cpu_now == cpu_now and cpu_now > 0.5 * hang
            record("hang", t + 1, f"no request for {hang:g} s after {t} of {T} duels "
                   f"({'busy looping' if looping else 'sleeping or blocked'}; {rate:.3g} duels/s "
                   "before)")
    elif done and t < T and not errors and env_error is None and usage_error is None \
            and not probe:
        record("stopped-early", t, f"returned after {t} of T = {T} duels")
    if not errors and usage_error is None and env_error is None and "MemoryError" in err:
        record("memory", t + 1, "MemoryError: the address-space limit "
               f"({limits.mem_bytes / 2**30:.3g} GiB) was reached")
    return JudgedRun(seed=int(seed), environment_seed=int(environment_seed), T=int(T),
                     pairs=pairs, outcomes=outcomes, errors=errors, error_counts=counts,
                     environment_error=env_error, usage_error=usage_error, wall_time=wall,
                     cpu_time=cpu, exit_status=exit_status, killed_leftovers=killed,
                     stdout_tail=out, stderr_tail=err,
                     protocol=(probe_info or {}).get("protocol") if probe else protocol,
                     progress=progress)


def trajectory(M: PreferenceMatrix, pairs: np.ndarray, checkpoints: np.ndarray
               ) -> dict[str, np.ndarray]:
    """Cumulative regret of the recorded duels at ``checkpoints`` (≤ number of duels).

    Computed from the judge's record only: per-step regret r_c(i_t, j_t) of each
    convention (:func:`duelbound.theory.regret.regret_matrix`), summed.
    """
    n = pairs.shape[0]
    ck = np.asarray(checkpoints, dtype=np.int64)
    ck = ck[(ck >= 1) & (ck <= n)]
    out = {}
    for c in CONVENTIONS:
        R = regret_matrix(M, c)
        per = R[pairs[:, 0], pairs[:, 1]] if n else np.zeros(0)
        cum = np.cumsum(per)
        out[c] = cum[ck - 1] if ck.size else np.zeros(0)
    out["checkpoints"] = ck
    return out
