"""The untrusted side of ``duelbound verify``: runs the user's algorithm, nothing else.

This file is executed as a script in a fresh interpreter (``python -I child.py
CONFIG``) started by :mod:`duelbound.checks.verify.judge`; it imports no part of duelbound, so
the only things the user's code can see are what the protocol gives it: K, T, its own
seed and the outcome of each duel it asks for.  The preference matrix, the
environment's generator, the record of the duels and the verdict code live in the
trusted parent process.

Wire protocol (constants in :mod:`duelbound.checks.verify.protocol`, loaded here by
path): the child writes a request as 8 bytes (i, j), little-endian int32, to one pipe
and reads the 1-byte answer from another (0: j won, 1: i won, 2: invalid request, 3:
more than T duels).  Markers in the i field: ``TEXT`` (j bytes of JSON follow:
exceptions, protocol detection), ``READY`` (built, the hang clock starts), ``DONE``,
``BAD`` (a request whose arguments are not int32 arm indices).  Nothing the child sends
other than its requests is used for a statistic.

Every call of ``duel(i, j)`` (and every pair ``select()`` returns) reaches the judge
before anything can fail in this process: arguments that cannot be sent as two int32
values — any integer of any size, bool, float, an object whose ``__index__`` or
``__repr__`` raises — go as a ``BAD`` request (fixed bytes, no encoding of the user's
values), which the judge records as an invalid request; only then is ProtocolError
raised in the algorithm's code.
"""

import importlib.util
import json
import operator
import os
import resource
import signal
import struct
import sys
import traceback


def _load_protocol():
    """The wire protocol's constants, from ``protocol.py`` beside this file (loaded by
    path: this script imports no part of duelbound, and its folder is not on sys.path)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.py")
    spec = importlib.util.spec_from_file_location("_duelbound_wire_protocol", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROTOCOL = _load_protocol()
DONE, TEXT, READY, BAD, INT32 = (PROTOCOL.DONE, PROTOCOL.TEXT, PROTOCOL.READY, PROTOCOL.BAD,
                                 PROTOCOL.INT32)
NOT_INT, OUT_OF_INT32, NOT_A_PAIR = 1, 2, 3   # PROTOCOL.BAD_REASONS' codes


class ProtocolError(Exception):
    """Raised by duel() on a request the judge refused (out of range, not an int, > T)."""


def _limits(cfg):
    mem, cpu, fsize = cfg.get("mem_bytes"), cfg.get("cpu_seconds"), cfg.get("fsize_bytes")
    if mem:
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if fsize:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes beyond the cap fail, no kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _drop_privileges()


def _drop_privileges():
    """No new privileges (setuid binaries), and as root no capabilities: with the judge
    non-dumpable, CAP_SYS_PTRACE would be the way into its memory (/proc/PPID/mem)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
        if os.geteuid() == 0:
            class Header(ctypes.Structure):
                _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

            class Data(ctypes.Structure):
                _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                            ("inheritable", ctypes.c_uint32)]

            libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)())
    except (OSError, AttributeError):
        pass


class _Channel:
    """Requests as 8-byte little-endian (i, j) on one pipe, 1-byte answers on another."""

    def __init__(self, cfg):
        self.req, self.resp = cfg["req"], cfg["resp"]
        self.pack = struct.Struct(PROTOCOL.REQUEST).pack

    def text(self, kind, **data):
        payload = json.dumps(dict(kind=kind, **data), default=repr).encode()[:PROTOCOL.TEXT_MAX]
        os.write(self.req, self.pack(TEXT, len(payload)) + payload)
        return self._answer()

    def _answer(self):
        b = os.read(self.resp, 1)
        if not b:
            os._exit(0)   # the judge is gone
        return b[0]

    def request(self, i, j):
        os.write(self.req, self.pack(i, j))
        b = os.read(self.resp, 1)
        if not b:
            os._exit(0)
        return b[0]


def _as_index(v):
    """(v as an exact int in INT32, 0) or (None, the BAD reason code).  Never raises: the
    user's ``__index__`` may raise anything, or return an int subclass."""
    try:
        if type(v) is not int:
            if isinstance(v, bool) or not hasattr(type(v), "__index__"):
                return None, NOT_INT
            v = int.__index__(operator.index(v))   # an exact int, whatever it returned
        return (v, 0) if INT32[0] <= v <= INT32[1] else (None, OUT_OF_INT32)
    except BaseException:  # noqa: BLE001 — the user's __index__
        return None, NOT_INT


def _as_pair(i, j):
    """(i, j, 0) as int32 arm indices, or (None, None, the BAD reason code)."""
    a, why = _as_index(i)
    b, why_b = _as_index(j)
    if a is None or b is None:
        return None, None, why or why_b
    return a, b, 0


def _show(v):
    """repr of the user's value for a message, whatever its __repr__ does."""
    try:
        return f"{v!r:.80}"
    except BaseException:  # noqa: BLE001
        return f"<{type(v).__name__}>"


def _resolve(spec, sys_path):
    import importlib

    sys.path[:] = [p for p in sys_path if p]
    mod_name, _, attr = spec.partition(":")
    mod = importlib.import_module(mod_name)
    obj = mod
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _unfit_factory(factory, spec):
    """A message when ``factory`` cannot be called as factory(K, T, seed), else ''."""
    import inspect

    if not callable(factory):
        return f"{spec} is a {type(factory).__name__}, not a callable factory(K, T, seed)"
    try:
        inspect.signature(factory).bind(1, 1, 1)
    except TypeError:
        try:
            sig = str(inspect.signature(factory))
        except (TypeError, ValueError):
            sig = "(...)"
        return (f"{spec}{sig} cannot be called as factory(K, T, seed); for a run(duel, T) "
                "function, name a factory that returns it: def make(K, T, seed): return run")
    except ValueError:
        return ""   # a builtin without a signature: the call itself will tell
    return ""


def _detect(obj):
    if callable(getattr(obj, "select", None)) and callable(getattr(obj, "update", None)):
        return "select"
    if callable(obj):
        return "duel"
    return None


def _describe(exc, where):
    """Every exception raised in this process is the algorithm's failure (a FAIL): an
    algorithm could otherwise raise ImportError to turn a FAIL into "cannot judge".  A
    missing or incompatible package is named as the likely cause."""
    name = type(exc).__name__
    msg = f"{where} raised {name}: {exc}"
    if isinstance(exc, ImportError) or (
            isinstance(exc, AttributeError) and "module 'numpy'" in str(exc)):
        msg += (" (likely a missing or incompatible package in this environment; the "
                "implementation fails here all the same)")
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__, limit=8)
    return "exception", msg, "".join(tb)[-4000:]


def main(argv):
    cfg = json.loads(argv[1])
    _limits(cfg)
    ch = _Channel(cfg)
    K, T, seed, protocol = cfg["K"], cfg["T"], cfg["seed"], cfg["protocol"]
    if cfg.get("exec"):
        return _run_exec(ch, cfg["exec"], K, T, seed, cfg.get("probe", False))
    try:
        factory = _resolve(cfg["spec"], cfg["sys_path"])
    except BaseException as exc:  # noqa: BLE001 — every failure is reported, then exit
        kind = "import" if isinstance(exc, (ImportError, AttributeError)) else "exception"
        ch.text(kind, message=f"cannot load {cfg['spec']!r}: {type(exc).__name__}: {exc}")
        ch.request(DONE, 0)
        return 0
    unfit = _unfit_factory(factory, cfg["spec"])
    if unfit:
        ch.text("usage", step=0, message=unfit)
        ch.request(DONE, 0)
        return 0
    try:
        obj = factory(K, T, seed)
    except BaseException as exc:  # noqa: BLE001
        kind, msg, tb = _describe(exc, "factory(K, T, seed)")
        ch.text(kind, step=0, message=msg, traceback=tb)
        ch.request(DONE, 0)
        return 0
    found = _detect(obj)
    if cfg.get("probe"):
        ch.text("probe", protocol=found, type=type(obj).__name__)
        ch.request(DONE, 0)
        return 0
    if protocol == "auto":
        protocol = found
    if found is None or (protocol == "select" and found != "select"):
        ch.text("usage", step=0, message=(
            f"factory(K, T, seed) returned a {type(obj).__name__}: expected an object with "
            "select() -> (i, j) and update(i, j, i_won) (select protocol) or a callable "
            "run(duel, T) (duel protocol)"))
        ch.request(DONE, 0)
        return 0
    ch.request(READY, 0)
    if protocol == "select":
        _run_select(ch, obj, T)
    else:
        _run_duel(ch, obj, T)
    return 0


def _run_select(ch, obj, T):
    select, update, request = obj.select, obj.update, ch.request
    lo, hi = INT32
    for step in range(1, T + 1):
        try:
            pair = select()
        except BaseException as exc:  # noqa: BLE001
            kind, msg, tb = _describe(exc, "select()")
            ch.text(kind, step=step, message=msg, traceback=tb)
            break
        try:
            i, j = pair
        except BaseException:  # noqa: BLE001 — not a pair, or its __iter__ raised
            request(BAD, NOT_A_PAIR)
            break
        if not (type(i) is int and type(j) is int and lo <= i <= hi and lo <= j <= hi):
            i, j, why = _as_pair(i, j)
            if why:
                request(BAD, why)   # recorded by the judge: an invalid request
                break
        code = request(i, j)
        if code not in (PROTOCOL.J_WON, PROTOCOL.I_WON):
            break
        try:
            update(i, j, code == PROTOCOL.I_WON)
        except BaseException as exc:  # noqa: BLE001
            kind, msg, tb = _describe(exc, "update()")
            ch.text(kind, step=step, message=msg, traceback=tb)
            break
    ch.request(DONE, 0)


def _run_duel(ch, run, T):
    request = ch.request
    lo, hi = INT32

    def duel(i, j):
        if not (type(i) is int and type(j) is int and lo <= i <= hi and lo <= j <= hi):
            a, b, why = _as_pair(i, j)
            if why:
                request(BAD, why)   # recorded by the judge before anything else can fail
                raise ProtocolError(f"duel() expects int arm indices in range, got "
                                    f"({_show(i)}, {_show(j)})")
            i, j = a, b
        code = request(i, j)
        if code in (PROTOCOL.J_WON, PROTOCOL.I_WON):
            return code == PROTOCOL.I_WON
        if code == PROTOCOL.INVALID:
            raise ProtocolError(f"invalid duel ({i}, {j}): arm index out of range")
        raise ProtocolError(f"duel ({i}, {j}) requested after T = {T} duels")

    try:
        run(duel, T)
    except BaseException as exc:  # noqa: BLE001
        kind, msg, tb = _describe(exc, "run(duel, T)")
        ch.text(kind, message=msg, traceback=tb)
    ch.request(DONE, 0)


def _run_exec(ch, argv, K, T, seed, probe):
    """The line protocol (``duelbound verify --exec``): the program reads the header
    ``duelbound 1 K T SEED``, then writes one request ``i j`` per line and reads the
    answer line ``1`` (i won), ``0`` (j won) or ``-1 reason`` (refused: out of range,
    not two integers, more than T duels; recorded by the judge).  It ends by exiting
    (or writing ``done``).  This process only translates lines to the judge's requests."""
    import subprocess

    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as exc:
        ch.text("import", message=f"cannot start {argv[0]!r}: {exc.strerror or exc}")
        ch.request(DONE, 0)
        return 0
    if probe:
        ch.text("probe", protocol="exec", type="program")
        proc.kill()
        ch.request(DONE, 0)
        return 0
    out, inp = proc.stdout, proc.stdin
    try:
        inp.write(f"duelbound 1 {K} {T} {seed}\n".encode())
        inp.flush()   # (every answer is flushed too: the program waits for each)
    except OSError:
        pass
    ch.request(READY, 0)
    answers = {PROTOCOL.J_WON: b"0\n", PROTOCOL.I_WON: b"1\n",
               PROTOCOL.INVALID: b"-1 invalid request\n",
               PROTOCOL.EXCEEDED: b"-1 more than T duels\n"}
    request = ch.request
    step = 0
    for line in out:
        step += 1
        words = line.split()
        if words == [b"done"]:
            break
        try:
            i, j = (int(w) for w in words)
            if not (INT32[0] <= i <= INT32[1] and INT32[0] <= j <= INT32[1]):
                raise ValueError
        except ValueError:
            ch.text("non-int", step=step,
                    message=f"expected a line 'i j' of two integers, got {line[:200]!r}")
            code = PROTOCOL.INVALID
        else:
            code = request(i, j)
        try:
            inp.write(answers[code])
            inp.flush()
        except OSError:
            break
    try:
        inp.close()
    except OSError:
        pass
    status = proc.wait()
    if status != 0:
        hint = (" (126/127: a file the program needs is outside the sandbox's view — give "
                "it as an argument, or an absolute interpreter path)"
                if status in (126, 127) else "")
        ch.text("exception", message=f"the program exited with status {status}{hint}")
    ch.request(DONE, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
