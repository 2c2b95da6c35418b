"""The judge is the referee: only the duel requests of the judged code count, it cleans up
after any run without crashing or losing the run's record, and a signal in any phase
ends the command with the partial report.

Each attack is a user module written to a temporary folder.  The raw-write attacks find
the request pipe the way the child does (its configuration, ``sys.argv[1]``) and read
the judge's answer back so the conversation stays in step: a real attacker would.  The
algorithm under attack is correct where the attack would need it to be (self-duels of
the Condorcet winner of ``cyclic`` without the relabeling: a clean protocol check
without the attack),
so a protocol check that is not a FAIL means the attack worked.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from judging import needs_sandbox, no_judged_leftovers

from duelbound.checks.verify import verify_algorithm
from duelbound.checks.verify.process import remove_tree

# every test judges code (CI: DUELBOUND_REQUIRE_SANDBOX=1) and leaves no judged process
pytestmark = [needs_sandbox, pytest.mark.usefixtures(no_judged_leftovers.__name__)]

REPO = Path(__file__).resolve().parents[1]

#: The judge's pipes, found as the child finds them, and a raw message on them.
RAW = """
import json, os, struct, sys
_CFG = json.loads(sys.argv[1])
def raw(i, j, payload=b""):
    os.write(_CFG["req"], struct.pack("<ii", i, j) + payload)
    return os.read(_CFG["resp"], 1)
def text(kind, **data):
    payload = json.dumps(dict(kind=kind, **data)).encode()
    return raw(-2147483647, len(payload), payload)
"""

#: Zero regret on ``cyclic`` without the relabeling (arm 0 is its Condorcet winner).
WINNER = """
def make(K, T, seed):
    def run(duel, horizon):
        for t in range(horizon):
            duel(0, 0)
            AFTER_DUEL
        AT_END
    return run
"""


def _module(tmp_path, monkeypatch, name: str, source: str) -> str:
    (tmp_path / f"{name}.py").write_text(RAW + textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:make"


def _winner(after_duel: str = "pass", at_end: str = "pass", head: str = "") -> str:
    return head + WINNER.replace("AFTER_DUEL", after_duel).replace("AT_END", at_end)


def _protocol(report):
    return report.matrices[0].check("protocol")


def test_the_unattacked_winner_keeps_the_protocol(tmp_path, monkeypatch):
    # the control of the attacks below: without one, its protocol check passes
    spec = _module(tmp_path, monkeypatch, "r_control", _winner())
    r = verify_algorithm(spec, ["cyclic"], T=300, runs=1, relabel=False, hang_timeout=5)
    assert _protocol(r).verdict == "PASS" and _protocol(r).rule == "clean", r.table()


# -- 1. every duel request is recorded, whatever its arguments ---------------------------

BAD_ARGUMENTS = """
import numpy as np
class Hostile:
    def __index__(self):
        raise SystemExit("no index")
    def __repr__(self):
        raise RuntimeError("no repr")
class Huge:
    def __index__(self):
        return 2**40
class Sneaky(int):
    def __index__(self):
        return 5
    def __le__(self, other):
        return True
    def __ge__(self, other):
        return True
BAD = [(2**40, 0), (0, -2**63), (-2**31, 0), (-2**31 + 1, 3), (-2**31 + 3, 0),
       (np.int64(2**40), 0), (1.0, 0), (True, 0), (None, 0), (Hostile(), 0), (Huge(), 0),
       (0, "1"), (Sneaky(2**40), 0)]
def make(K, T, seed):
    def run(duel, horizon):
        for t in range(horizon):
            for i, j in BAD:
                try:
                    duel(i, j)
                except BaseException:
                    pass
            duel(0, 0)
    return run
"""


def test_swallowed_requests_of_any_argument_are_recorded(tmp_path, monkeypatch):
    spec = _module(tmp_path, monkeypatch, "r_bad_args", BAD_ARGUMENTS)
    T = 40
    r = verify_algorithm(spec, ["cyclic"], T=T, runs=1, relabel=False, hang_timeout=5)
    chk = _protocol(r)
    assert chk.verdict == "FAIL" and r.exit_code == 1, r.table()
    # run and replay: every one of the 13 bad calls at every step, nothing else
    assert chk.statistic["error_counts"] == {"invalid-index": 2 * 13 * T}, chk.statistic
    assert r.matrices[0].runs[0].steps == T


@pytest.mark.parametrize("pair", ["(2**40, 0)", "(0, 2**31)", "(-2**31, 0)", "Pair()",
                                  "(0.5, 1)", "(0, 1, 2)"])
def test_select_returning_anything_but_two_int32_indices_fails(tmp_path, monkeypatch, pair):
    spec = _module(tmp_path, monkeypatch, f"r_select{abs(hash(pair)) % 10**6}", f"""
        class Pair:
            def __iter__(self):
                raise RuntimeError("not iterable after all")
        class A:
            def __init__(self, K, T, seed):
                self.t = 0
            def select(self):
                self.t += 1
                return (0, 0) if self.t < 10 else {pair}
            def update(self, i, j, won):
                pass
        make = A
    """)
    r = verify_algorithm(spec, ["cyclic"], T=100, runs=1, relabel=False, hang_timeout=5)
    first = _protocol(r).statistic["first_error"]
    assert _protocol(r).verdict == "FAIL" and first["kind"] == "invalid-index", r.table()
    assert first["step"] == 10


# -- 2. nothing else the child says changes the verdict ----------------------------------

ATTACKS = {
    # the issue's: a load failure forged after the last duel (the replay was skipped)...
    "import after the last duel": _winner(at_end='text("import", message="no numpy")'),
    # ... and a usage error after 300 duels by an algorithm that never commits
    "usage after 300 duels": """
        def make(K, T, seed):
            def run(duel, horizon):
                for t in range(300):
                    duel(t % K, (t + 1) % K)
                text("usage", step=0, message="factory(K, T, seed) unusable")
            return run
    """,
    "an unknown kind": _winner(after_duel='t == 5 and text("verdict", verdict="PASS")'),
    "the probe's answer in a run": _winner(at_end='text("probe", protocol="duel")'),
    "a second READY": _winner(after_duel="t == 7 and raw(-2147483646, 0)"),
    "a duel before READY": _winner(head="raw(0, 0)\n"),
    "a load failure in a run only": _winner(
        head='_CFG["probe"] or text("usage", message="refused")\n'),
    "bytes after DONE": _winner(
        head='import atexit\natexit.register(lambda: os.write(_CFG["req"], b"\\0" * 8))\n'),
    "an unreadable message": _winner(at_end='raw(-2147483647, 3, b"{x")'),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_raw_protocol_writes_are_a_protocol_failure(tmp_path, monkeypatch, attack):
    name = "r_" + "".join(c if c.isalnum() else "_" for c in attack)
    spec = _module(tmp_path, monkeypatch, name, ATTACKS[attack])
    r = verify_algorithm(spec, ["cyclic"], T=400, runs=1, relabel=False, hang_timeout=5)
    chk = _protocol(r)
    assert chk.verdict == "FAIL" and r.verdict == "FAIL" and r.exit_code == 1, r.table()
    assert chk.rule == "protocol-error", chk
    first = chk.statistic["first_error"]
    assert first["kind"] in ("unexpected-message", "exception", "corrupt"), first
    if first["kind"] == "unexpected-message":
        assert "not a message of the protocol" in first["message"]
    # the record is the judge's: the duels it answered, never a number the child sent
    assert r.matrices[0].runs[0].steps == chk.statistic["duels"] <= 400


def test_a_non_deterministic_algorithm_cannot_skip_the_replay(tmp_path, monkeypatch):
    # the D-TS that is not deterministic: forging after its last duel used to
    # make the replay check skip; now the forgery fails it, and without the forgery the
    # replay does
    body = """
        def make(K, T, seed):
            first = int.from_bytes(os.urandom(2), "little") % K
            def run(duel, horizon):
                duel(first, first)
                for t in range(horizon - 1):
                    duel(0, 0)
                FORGE
            return run
    """
    for forge, rule in (('text("import", message="x")', "protocol-error"),
                        ("pass", "non-deterministic")):
        spec = _module(tmp_path, monkeypatch, f"r_nondet_{rule[:3]}", body.replace(
            "FORGE", forge))
        # the run and its replay agree on their first duel with chance 1/K (K = 4 on
        # cyclic): 12 tries leave a (1/4)^12 ≈ 6e-8 chance of a spurious failure (with 3
        # tries, 1/64, it failed once in CI)
        for _ in range(12):
            r = verify_algorithm(spec, ["cyclic"], T=200, runs=1, relabel=False,
                                 hang_timeout=5)
            if _protocol(r).rule == rule:
                break
        assert _protocol(r).verdict == "FAIL" and _protocol(r).rule == rule, r.table()


def test_an_exec_program_cannot_reach_the_binary_protocol(tmp_path):
    # it looks for the bridge's pipes under /proc (the attack) and writes the
    # forged 'usage' message of the never-committing algorithm to every one it can open
    prog = tmp_path / "forger.py"
    prog.write_text(textwrap.dedent("""
        import glob, json, os, struct, sys
        K, T = (int(w) for w in sys.stdin.readline().split()[2:4])
        payload = json.dumps({"kind": "usage", "message": "forged"}).encode()
        forged = struct.pack("<ii", -2147483647, len(payload)) + payload
        for t in range(300):
            print(t % K, (t + 1) % K, flush=True)
            sys.stdin.readline()
        mine = (f"/proc/{os.getpid()}/", "/proc/self/", "/proc/thread-self/")
        for path in glob.glob("/proc/*/fd/*"):
            if path.startswith(mine):   # its own stdout is the line protocol's pipe
                continue
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                os.write(fd, forged)
                os.close(fd)
            except OSError:
                pass
    """))
    r = verify_algorithm(None, ["cyclic"], T=2000, runs=1, relabel=False, hang_timeout=5,
                         command=[sys.executable, str(prog)])
    assert r.verdict == "FAIL" and r.exit_code == 1, r.table()
    assert _protocol(r).statistic["first_error"]["kind"] == "stopped-early"


# -- 3. cleanup cannot crash the judge or lose a run's record ----------------------------

def _deep(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d" * 200, dir_fd=fd)
        sub = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
    with open(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as fh:
        fh.write("bottom")
    os.close(fd)


def test_remove_tree_takes_any_depth_and_never_follows_a_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the caller's")
    work = tmp_path / "work"
    work.mkdir()
    _deep(work, 3000)   # 600 kB of path: far beyond PATH_MAX, and beyond recursion
    (work / "link").symlink_to(outside)
    locked = work / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "x").write_text("x")
    os.chmod(locked / "inner", 0)
    os.chmod(locked, 0)
    with open(work / "huge", "wb") as fh:
        fh.truncate(1 << 40)   # a 1 TiB sparse file
    assert remove_tree(str(work)) == ""
    assert not work.exists() and (outside / "keep.txt").read_text() == "the caller's"
    assert remove_tree(str(work)) == ""   # already gone: nothing to say


def test_remove_tree_reports_what_it_cannot_remove(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "a" / "b").mkdir(parents=True)
    real = os.rmdir

    def refuse(path, *, dir_fd=None):
        if path == "b":
            raise PermissionError(1, "Operation not permitted")
        return real(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "rmdir", refuse)
    note = remove_tree(str(work))
    assert note.startswith("working folder not removed") and "entries left" in note
    assert (work / "a" / "b").is_dir()


def test_a_deep_tree_left_by_a_run_keeps_its_record(tmp_path, monkeypatch):
    # process isolation: the working folder is on the host disk (in the sandbox it is a
    # tmpfs that goes with it); the tree must go and the run's record must stay
    runs_tmp = tmp_path / "host-tmp"
    runs_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(runs_tmp))   # the forked workers' too
    spec = _module(tmp_path, monkeypatch, "r_deep", _winner(head=textwrap.dedent("""
        _fd = os.open(".", os.O_RDONLY)
        for _ in range(3000):
            os.mkdir("d" * 100, dir_fd=_fd)
            _sub = os.open("d" * 100, os.O_RDONLY, dir_fd=_fd)
            os.close(_fd)
            _fd = _sub
        os.close(_fd)
    """)))
    r = verify_algorithm(spec, ["cyclic"], T=300, runs=1, relabel=False, hang_timeout=5,
                         isolation="process")
    run = r.matrices[0].runs[0]
    assert run.steps == 300 and run.cleanup == "" and _protocol(r).verdict == "PASS", \
        r.table()
    assert list(runs_tmp.iterdir()) == []


# -- 4. a signal in any phase: the partial report, exit 130 / 143 ------------------------

SLOW = _winner(after_duel="__import__('time').sleep(0.002)")
START = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from duelbound.cli import main; raise SystemExit(main(sys.argv[1:]))")
THREE = ("--only", "cyclic", "--only", "unique_copeland", "--only", "multi_winner")
#: Per phase: the module, the options, whether the report goes to stdout.  Runs long
#: enough to be caught in the probe and the runs; in the verdicts, three matrices (the
#: signal comes while the first is judged: numba's compilation and C*); in the report's
#: writing, a JSON report on stdout larger than a pipe holds, read only after the signal.
PHASES = {"probe": (SLOW, ("--only", "cyclic", "--runs", "1"), False),
          "runs": (SLOW, ("--only", "cyclic", "--runs", "1"), False),
          "verdicts": (_winner(), (*THREE, "--runs", "1"), False),
          "report": (_winner(), (*THREE, "--runs", "3", "--json", "-"), True)}


def _cli(code: Path, mod: str, out: Path, *extra: str) -> subprocess.Popen:
    json_out = () if "-" in extra else ("--json", str(out))
    return subprocess.Popen([sys.executable, "-c", START, "verify", f"{mod}:make", "--T",
                             "2000", "--no-relabel", "--hang-timeout", "5", "--extend-budget",
                             "0", *json_out, *extra],
                            cwd=code, env=dict(os.environ, PYTHONPATH=str(code),
                                               DUELBOUND_VERIFY_PHASES="1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(proc: subprocess.Popen, marker: str, lines: list[str]) -> None:
    """Read stderr until the phase marker (not a fixed sleep: a loaded machine is slow)."""
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line)
        if marker in line:
            return
    raise AssertionError(f"no {marker!r} on stderr: {''.join(lines)[-2000:]}")


@pytest.mark.parametrize("phase", list(PHASES))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_in_any_phase_writes_the_partial_report(tmp_path, phase, sig):
    source, options, to_stdout = PHASES[phase]
    (tmp_path / "r_sig.py").write_text(RAW + source)
    out = tmp_path / "report.json"
    proc = _cli(tmp_path, "r_sig", out, *options)
    seen: list[str] = []
    _wait_for(proc, f"duelbound verify: phase {phase}", seen)
    tree = _descendants(proc.pid)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    stderr = "".join(seen) + stderr
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr and "interrupted by " + sig.name in stderr, stderr
    data = json.loads(stdout if to_stdout else out.read_text())
    if phase == "report":   # complete before the signal: it says so, and the exit code
        assert data["interrupted"] is None and "the report is complete" in stderr
        assert len(data["matrices"]) == 3
    else:
        assert data["interrupted"] == sig.name and data["exit_code"] == 128 + sig
        assert "overall:" in stdout and f"INTERRUPTED by {sig.name}" in stdout, stdout
        # what was not judged says so: every matrix in the probe and the runs, the last
        # one at least in the verdicts
        last = data["matrices"][-1]["checks"]
        assert last[0]["verdict"] == "INCONCLUSIVE" and "interrupted" in last[0]["message"]
        assert len(last) == 1, last   # no verdict computed for it after the signal
    left = [p for p in tree if _running(p)]
    assert not left, left


def _descendants(pid: int) -> list[int]:
    from judging import descendants

    return descendants(pid)


def _running(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return False
        except OSError:
            return False
        time.sleep(0.1)
    return True


def test_the_handler_notes_and_raises_only_where_the_judge_can_stop():
    from duelbound.checks.verify.interrupts import Interrupted, Interrupts

    irq = Interrupts()
    before = signal.getsignal(signal.SIGTERM)
    with irq.installed():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)   # a library replacing it
        irq.ensure()
        assert signal.getsignal(signal.SIGTERM) == irq.handler
        irq.handler(signal.SIGTERM, None)   # outside raising(): noted, not raised
        assert irq.signum == signal.SIGTERM and irq.name == "SIGTERM"
        with pytest.raises(Interrupted):    # a section entered after a signal stops at once
            with irq.raising():
                pass
    assert signal.getsignal(signal.SIGTERM) == before   # put back
    with irq.installed():
        assert irq.signum is None   # a new command starts clean
        with pytest.raises(Interrupted) as info:
            with irq.raising():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)   # ended by the signal, not slept out
        assert info.value.signum == signal.SIGINT
        irq.handler(signal.SIGTERM, None)   # a second signal: the first one counts
        assert irq.signum == signal.SIGINT
