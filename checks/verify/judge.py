"""The trusted side of ``duelbound verify``: an environment user code cannot reach.

:func:`judge_run` starts the user's algorithm in a fresh interpreter
(:class:`.process.AlgorithmProcess`: :mod:`.child` in the sandbox, its own process
group, resource limits, stdout/stderr captured to files) and plays the environment for
it: the child sends the pairs it wants to duel, this process draws each outcome from a
generator seeded by a *secret* environment seed and answers with that outcome only.
The preference matrix, the generator and the record of every duel (the requested pairs
and their outcomes) never leave this process; every statistic of a run is computed
from that record (:func:`.record.duel_summary`), never from anything else the child
says.  The result is the run's one record, :class:`.record.JudgedRun`.

Protocol (:mod:`.protocol`; two pipes, chosen by measurement over a shared-memory
mailbox, see ``benchmarks/bench_verify.py`` and docs/verification.md): the child writes
each request as 8 bytes (i, j) — little-endian int32 — and blocks on a 1-byte answer:
0 j won, 1 i won, 2 invalid request (out of range or not an int; recorded), 3 more
than T duels (recorded).  Markers in the i field announce a JSON text message
(exceptions, protocol detection), READY (module imported and factory built: the hang
clock starts) and DONE.  The judge reads with blocking reads; a watchdog thread
(:class:`.process.Watchdog`) enforces the limits by killing the child's process group,
which ends the read.

Limits per run (:class:`.process.Limits`): wall time, CPU time (RLIMIT_CPU), address
space (RLIMIT_AS), output file size (RLIMIT_FSIZE), its own process group, and a hang
timeout (no request for ``hang_timeout`` seconds: a sleeping, looping or SIGSTOPped
child).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import struct
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...theory.errors import DuelboundError
from ...theory.matrix import PreferenceMatrix
from .interrupts import INTERRUPTS
from .process import AlgorithmProcess, Limits, Watchdog
from .protocol import (
    ANSWERS,
    BAD,
    BAD_REASONS,
    DONE,
    EXCEEDED,
    I_WON,
    INVALID,
    J_WON,
    READY,
    REQUEST,
    TEXT,
    TEXT_MAX,
)
from .record import JudgedRun, duel_summary, trajectory
from .text import clean

__all__ = ["Limits", "JudgedRun", "judge_run", "probe", "detect_protocol", "trajectory",
           "harden", "new_environment_seed", "arm_relabeling", "run_environment_seed",
           "PROTOCOL_ERRORS"]

#: Outcomes drawn per call of the generator.
BLOCK = 1 << 16
#: Protocol errors kept per run (all are counted).
MAX_ERRORS = 20

#: Error kinds that are the algorithm's fault (a protocol FAIL).  ``environment``
#: (ImportError, a removed NumPy alias inside a library) and ``usage`` are not.
PROTOCOL_ERRORS = ("exception", "invalid-index", "exceeded-T", "stopped-early", "crash",
                   "timeout", "startup", "hang", "stopped", "cpu-limit", "memory",
                   "corrupt", "unexpected-message")


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



def _parse_text(raw: bytes) -> dict[str, Any] | None:
    """The child's JSON message, its strings escaped (:func:`.text.clean`): whatever it
    says reaches the report, stderr and the terminal as data only."""
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    # one line each but the traceback: a newline could start a forged line of the report
    return {clean(k, newlines=False): clean(v, newlines=k == "traceback")
            if isinstance(v, str) else v for k, v in data.items()}


class _Referee:
    """The judge's side of one run's conversation: answers every request of the
    algorithm's process and records the duels and the protocol errors.

    Only the requests count: a duel is recorded here before it is answered, a request
    the child could not encode comes as ``BAD`` and is recorded as invalid.  Every other
    message can only end the run or fail it: what is accepted, when, is in
    :mod:`.protocol`; anything else — a second READY, a duel before READY, a message
    kind the child never sends at that point, bytes after DONE — is a protocol error
    (``unexpected-message``).  Nothing the child says can skip a check: a load failure
    (``import``, ``usage``) is a reason not to judge only in the probe; in a run, the
    probe having loaded the module, it is the algorithm's failure.
    """

    def __init__(self, ch: AlgorithmProcess, dog: Watchdog, K: int, T: int,
                 perm: list[int], mu: list[list[float]], rng: np.random.Generator,
                 probe: bool = False):
        self.ch, self.dog, self.K, self.T, self.probe = ch, dog, K, T, probe
        self.perm, self.mu, self.rng = perm, mu, rng
        self.log = array("i")            # the duels, in the matrix's labels
        self.outs = bytearray()          # their outcomes (1: i won)
        self.errors: list[dict[str, Any]] = []
        self.counts: dict[str, int] = {}
        self.usage_error: dict[str, Any] | None = None
        self.probe_info: dict[str, Any] | None = None
        self.t = 0
        self.t_first: float | None = None
        self.done = False
        self.limit = 0        # duels allowed now: T once READY was said, 0 before

    def record(self, kind: str, step: int | None, message: str, **extra: Any) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(dict(kind=kind, step=step, message=message, **extra))

    def play(self) -> None:
        """Answer requests until DONE, end of file or a broken pipe (the hot loop: valid
        duels inline, everything else in :meth:`_other`)."""
        ch, K, mu, perm, rng = self.ch, self.K, self.mu, self.perm, self.rng
        read, write, rfd, wfd = os.read, os.write, ch.req_r, ch.resp_w
        unpack = struct.Struct(REQUEST).unpack
        count = self.dog.count
        log, outs = self.log.append, self.outs.append
        u: list[float] = []
        k = t = limit = 0   # limit: T once READY was said (a duel before it is refused)
        try:
            while not self.done:
                msg8 = read(rfd, 8)
                if len(msg8) != 8:
                    msg8 += ch.read(8 - len(msg8)) if msg8 else b""
                    if len(msg8) != 8:
                        break                       # end of file: the child is gone
                count[0] += 1
                i, j = unpack(msg8)
                if 0 <= i < K and 0 <= j < K and t < limit:
                    if k == len(u):
                        u = rng.random(BLOCK).tolist()
                        k = 0
                    code = I_WON if u[k] < mu[i][j] else J_WON
                    k += 1
                    log(perm[i])
                    log(perm[j])
                    outs(code)
                    t += 1
                else:
                    self.t = t
                    code = self._other(i, j)
                    limit = self.limit
                try:
                    write(wfd, ANSWERS[code])
                except BrokenPipeError:
                    break
        finally:
            self.t = t

    def unexpected(self, step: int | None, what: str) -> int:
        """Record a message the child's protocol never sends at this point: the answer."""
        self.record("unexpected-message", step, f"{what}: not a message of the protocol at "
                    "this point (a raw write to the judge's pipe?)")
        return INVALID

    def _other(self, i: int, j: int) -> int:
        """A marker or a refused request: the answer's code."""
        t, K = self.t, self.K
        if i == READY:
            if self.t_first is not None or self.probe:
                return self.unexpected(t + 1, "a second READY" if self.t_first is not None
                                       else "READY in the probe")
            self.dog.ready[0] = True
            self.t_first = time.perf_counter()
            self.limit = self.T
            return J_WON
        if i == DONE:
            self.done = True
            self.ch.early = self.ch.survivors()  # before the answer lets it exit
            return J_WON
        if i == TEXT:
            return self._text(j)
        if i == BAD:
            self.record("invalid-index", t + 1, f"request #{t + 1}: "
                        f"{BAD_REASONS.get(j, 'not a pair of int32 arm indices')}")
            return INVALID
        if self.t_first is None and 0 <= i < K and 0 <= j < K:
            return self.unexpected(t + 1, f"a duel ({i}, {j}) before READY")
        if t >= self.T and 0 <= i < K and 0 <= j < K:
            self.record("exceeded-T", t + 1, f"duel #{t + 1} ({i}, {j}) requested with "
                        f"T = {self.T}")
            return EXCEEDED
        self.record("invalid-index", t + 1,
                    f"arm index out of range 0..{K - 1}: ({i}, {j}) at step {t + 1}")
        return INVALID

    def _text(self, n: int) -> int:
        """A JSON message of ``n`` bytes: an exception report (a protocol error whenever
        it comes), a refused line of an ``--exec`` program, and before READY the load's
        failure or the probe's answer; any other kind at any point is unexpected."""
        step = self.t + 1
        msg = _parse_text(self.ch.read(n)) if 0 <= n <= TEXT_MAX else None
        if msg is None:
            self.record("corrupt", step, "unreadable message from the algorithm's process")
            return INVALID
        kind = str(msg.get("kind", ""))
        text = str(msg.get("message", ""))[:2000]
        started = self.t_first is not None
        if kind == "exception":
            self.record("exception", step if started else 0, text,
                        traceback=str(msg.get("traceback", ""))[-4000:])
        elif kind == "non-int" and started:
            self.record("invalid-index", step, text)
            return INVALID
        elif kind in ("import", "usage", "probe") and not started and self.probe:
            if kind == "probe":
                self.probe_info = {"protocol": msg.get("protocol"),
                                   "type": str(msg.get("type", ""))}
            else:
                self.usage_error = dict(kind=kind, step=0, message=text)
        elif kind in ("import", "usage") and not started:
            # the probe loaded this module and built its factory: in a run, failing to is
            # the algorithm's doing (a flaky import, another K refused, a forged message)
            self.record("exception", 0, f"{text} (in this run; the probe had loaded the "
                        "module and built the factory)")
        else:
            return self.unexpected(step, f"a {kind[:40]!r} message "
                                   + ("after the run started" if started else "in a run"))
        return J_WON


@dataclass(frozen=True)
class _Ending:
    """How a run ended, as the judge measured it after the conversation."""

    stop: str | None        # the watchdog's reason, "crash" (no DONE) or None
    wall: float
    busy: float             # seconds from READY to the end
    cpu_at_stop: float
    exit_status: str
    cpu: float
    killed: int
    out: str
    err: str
    cleanup: str = ""       # what removing the working folder left ("" when removed)


def _stop_error(ref: _Referee, end: _Ending, rate: float, limits: Limits, startup: float
                ) -> None:
    """Record why the watchdog (or the child's death) ended the run."""
    t, T, hang = ref.t, ref.T, limits.hang_timeout
    if end.stop == "crash":
        low = "cpu-limit" if "SIGXCPU" in end.exit_status else (
            "memory" if "MemoryError" in end.err else "crash")
        ref.record(low, t + 1, f"process died ({end.exit_status}) after {t} of {T} duels")
    elif end.stop == "timeout":
        need = T / rate if rate > 0 else float("inf")
        feasible = int(rate * max(limits.time_limit - (end.wall - end.busy), 0.0))
        ref.record("timeout", t + 1, f"time limit {limits.time_limit:g} s reached after {t} "
                   f"of {T} duels ({rate:.3g} duels/s; still making progress — too slow, not "
                   f"hung: T = {T} needs about {need:.3g} s, --T {feasible} fits the limit)")
    elif end.stop == "budget":   # not the algorithm's doing: NOT_RUN, judged as recorded
        ref.record("budget", t + 1, f"cut by the wall-clock budget after {t} of {T} duels "
                   "(judged up to its last duel)")
    elif end.stop == "startup":
        ref.record("startup", 0, f"start-up limit {startup:g} s reached: importing the "
                   "module and building factory(K, T, seed) did not finish (no duel asked)")
    elif end.stop == "stopped":
        ref.record("stopped", t + 1, f"process stopped (SIGSTOP) after {t} of {T} duels")
    elif end.stop == "memory":
        ref.record("memory", t + 1, f"memory limit {limits.mem_bytes / 2**30:.3g} GiB of the "
                   f"run reached after {t} of {T} duels (its processes, memfds and tmpfs "
                   "together, as the judge measures them)")
    else:
        cpu = end.cpu_at_stop
        looping = cpu == cpu and cpu > 0.5 * hang
        ref.record("hang", t + 1, f"no request for {hang:g} s after {t} of {T} duels "
                   f"({'busy looping' if looping else 'sleeping or blocked'}; {rate:.3g} "
                   "duels/s before)")


def _conclude(ref: _Referee, end: _Ending, limits: Limits, probe: bool
              ) -> tuple[float, dict[str, Any] | None]:
    """Record the errors of the run's end: (duels per second, the environment error)."""
    rate = ref.t / end.busy if end.busy > 0 else 0.0
    env_error = None
    if end.stop == "never-started":
        env_error = dict(kind="environment", step=0, message="the sandbox did not start: "
                         + (end.err.strip().splitlines() or [end.exit_status])[-1][:300])
    elif end.stop is not None:
        startup = limits.startup_timeout or max(3 * limits.hang_timeout, 60.0)
        _stop_error(ref, end, rate, limits, startup)
    elif ref.done and ref.t < ref.T and not ref.errors and ref.usage_error is None \
            and not probe:
        ref.record("stopped-early", ref.t, f"returned after {ref.t} of T = {ref.T} duels")
    if not ref.errors and ref.usage_error is None and env_error is None \
            and "MemoryError" in end.err:
        ref.record("memory", ref.t + 1, "MemoryError: the address-space limit "
                   f"({limits.mem_bytes / 2**30:.3g} GiB) was reached")
    return rate, env_error


def _converse(spec: str, M: PreferenceMatrix | None, K: int, T: int, seed: int,
              environment_seed: int, protocol: str, limits: Limits, probe: bool,
              hidden: Sequence[str], relabel: bool) -> tuple[_Referee, _Ending, str]:
    """Start the algorithm's process, answer it to its end, end it: (referee, ending,
    its isolation)."""
    from ..simulate.environment import make_rng

    cfg: dict[str, Any] = {"spec": spec, "K": int(K), "T": int(T), "seed": int(seed),
                           "protocol": protocol, "probe": probe}
    if spec.startswith("exec:"):   # a program speaking the line protocol (exec_spec)
        cfg["exec"] = json.loads(spec[5:])
    perm = (arm_relabeling(environment_seed, K) if relabel and M is not None
            else np.arange(K)).tolist()
    # the algorithm's (a, b) is the matrix's (perm[a], perm[b]): µ as it is presented
    mu = (M.values[np.ix_(perm, perm)].tolist() if M is not None else [[0.5] * K] * K)
    ch = AlgorithmProcess(cfg, limits, hidden)
    startup = limits.startup_timeout or max(3 * limits.hang_timeout, 60.0)
    dog = Watchdog(ch, time.monotonic() + limits.time_limit, limits.hang_timeout, startup,
                   limits.deadline)
    dog.start()
    ref = _Referee(ch, dog, K, T, perm, mu, make_rng(int(environment_seed)), probe)
    try:
        # the probe runs in the command's own process: a signal there ends its blocking
        # conversation (a run's worker stops on its own SIGTERM handler)
        with INTERRUPTS.raising() if probe else contextlib.nullcontext():
            ref.play()
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
    stop = dog.kind if dog.kind is not None else (None if ref.done else "crash")
    exit_status, cpu, killed, out, err = ch.finish(1.0 if ref.done else 0.0)
    if ref.done and ch.trailing:
        ref.unexpected(None, f"{ch.trailing} byte(s) written after DONE")
    wall = t_end - ch.t0
    busy = t_end - ref.t_first if ref.t_first is not None else wall
    if stop == "crash" and ch.never_started():
        stop = "never-started"
    return ref, _Ending(stop, wall, busy, dog.cpu, exit_status, cpu, killed, out, err,
                        ch.cleanup), ch.isolation.describe()


def judge_run(spec: str, M: PreferenceMatrix, T: int, seed: int, environment_seed: int,
              *, protocol: str = "auto", limits: Limits | None = None,
              hidden: Sequence[str] = (), relabel: bool = True) -> JudgedRun:
    """Play one run of the user's algorithm ``spec`` ("module:attr") on ``M``.

    Parameters
    ----------
    spec : str
        ``"package.module:factory"``, resolved in the child only (or ``"exec:" + JSON
        argv`` for a program speaking the line protocol).
    M : PreferenceMatrix
        The environment (never sent to the child; only K is).
    T, seed : int
        Horizon and the algorithm's own seed (given to ``factory(K, T, seed)``).
    environment_seed : int
        Seed of the environment's generator (secret: see :func:`new_environment_seed`).
    protocol : {"auto", "select", "duel"}
    limits : Limits, optional
    hidden : sequence of str
        Files the sandbox shows empty (the suite's matrix files).
    relabel : bool
        Present the arms under the secret relabeling :func:`arm_relabeling` (default).
        The record is kept in the matrix's labels either way.

    Returns
    -------
    JudgedRun
        The judge's own record: the summary of the duels, protocol errors (each with its
        step and a count per kind), exit status, captured output tails, measurements.
    """
    limits = limits or Limits()
    ref, end, isolation = _converse(spec, M, M.K, T, seed, environment_seed, protocol,
                                    limits, False, hidden, relabel)
    rate, env_error = _conclude(ref, end, limits, probe=False)
    pairs = np.frombuffer(ref.log.tobytes(), dtype=np.int32).reshape(-1, 2)
    return JudgedRun(seed=int(seed), T=int(T), environment_seed=int(environment_seed),
                     errors=tuple(ref.errors), error_counts=ref.counts,
                     environment_error=env_error, usage_error=ref.usage_error,
                     wall_time=end.wall, cpu_time=end.cpu, duels_per_s=rate,
                     startup_s=end.wall - end.busy, exit_status=end.exit_status,
                     leftover_processes=end.killed, stdout_tail=end.out,
                     stderr_tail=end.err, isolation=isolation, cleanup=end.cleanup,
                     relabeled=bool(relabel), **duel_summary(M, pairs, T))


def probe(spec: str, K: int, T: int, seed: int, limits: Limits | None = None) -> dict[str, Any]:
    """Load ``spec`` in a child, build ``factory(K, T, seed)`` and detect its protocol.

    Returns ``{"protocol": "select" | "duel" | "exec" | None, "type": ...}`` or
    ``{"kind": ..., "message": ...}`` when loading or building failed.  The
    trusted process never imports the user's module.
    """
    limits = limits or Limits(time_limit=60.0, hang_timeout=60.0)
    ref, end, _ = _converse(spec, None, K, T, seed, 0, "auto", limits, True, (), False)
    if ref.probe_info is not None:
        return ref.probe_info
    _, env_error = _conclude(ref, end, limits, probe=True)
    err = ref.usage_error or env_error or (ref.errors[0] if ref.errors else None) or {
        "kind": "crash", "message": f"the probe process died ({end.exit_status}): "
                                    f"{end.err[-300:]}"}
    return {"kind": err.get("kind", "crash"), "message": err.get("message", "")}


def detect_protocol(spec: str, K: int, T: int, seed: int, protocol: str,
                    limits: Limits) -> str:
    """Import the user's factory in a child once, build ``factory(K, T, seed)`` with the
    suite's K and name its protocol (a DuelboundError when it cannot be judged).

    ``limits`` are the runs' limits: the probe has their start-up time limit and memory.
    """
    startup = float(limits.startup_timeout or max(60.0, 3 * limits.hang_timeout))
    info = probe(spec, K, T, seed, replace(limits, time_limit=startup + 5,
                                           hang_timeout=startup, startup_timeout=startup))
    if "kind" in info:
        if info["kind"] in ("import", "usage", "environment", "crash", "startup"):
            raise DuelboundError(f"{spec}: {info['message']}")
        return protocol  # the factory raised: every run will report it
    detected = info["protocol"]
    if detected is None:
        raise DuelboundError(
            f"{spec}: factory(K, T, seed) returned a {info.get('type')}, which fits "
            "neither protocol: an object with select() -> (i, j) and update(i, j, "
            "i_won) (select) or a callable run(duel, T) (duel)")
    if protocol != "auto" and protocol != detected:
        raise DuelboundError(f"{spec}: --protocol {protocol} given, but "
                             f"factory(K, T, seed) returned a {info.get('type')} "
                             f"({detected} protocol)")
    return detected
