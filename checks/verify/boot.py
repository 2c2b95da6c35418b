"""First code run inside the sandbox, before the judged code: it finishes what
bubblewrap has no option for, then runs the child script.

Executed as ``python -P -s /run/duelbound/boot.py`` (a copy bound into the sandbox; its
command line names no path of the caller).  It reads ``/run/duelbound/config.json``, and

* when started as root (the judge was root: bubblewrap made no user namespace), drops to
  the run's own unprivileged uid/gid with no supplementary groups — every capability is
  lost with it, so the judged code cannot read what only root may (``/etc/shadow``), and
  RLIMIT_NPROC (set next) counts this run's processes only — then enters a user namespace
  of its own mapping only that uid, allows no user namespace below it and gives up the
  capabilities it had there (no mount of an unsized ramfs or tmpfs by the judged code);
* joins a fresh anonymous session keyring (``keyctl(KEYCTL_JOIN_SESSION_KEYRING)``): the
  keys of the judge's session, and of any other run, are out of reach;
* sets RLIMIT_NPROC and RLIMIT_NOFILE, and PR_SET_NO_NEW_PRIVS;
* makes the process non-dumpable when it only bridges an ``--exec`` program: the program
  (same uid) then cannot open the bridge's pipes through ``/proc/<pid>/fd``;
* runs ``/run/duelbound/child.py`` with the configuration as its argument (in this
  process: no second interpreter start).

Like ``child.py`` it imports no part of duelbound.  Any failure here exits with status
125 and one line on stderr, which the judge reports as a sandbox failure.
"""

import ctypes
import json
import os
import platform
import resource
import runpy
import sys

HERE = "/run/duelbound"
#: keyctl's system call number per machine (asm/unistd.h); there is no libc wrapper
KEYCTL = {"x86_64": 250, "aarch64": 219, "arm64": 219, "riscv64": 219, "ppc64le": 271,
          "ppc64": 271, "s390x": 280, "i686": 288, "i386": 288, "armv7l": 311,
          "loongarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
CLONE_NEWUSER = 0x10000000


def _fail(message):
    sys.stderr.write(f"duelbound sandbox boot: {message}\n")
    sys.stderr.flush()
    os._exit(125)


def _write(path, text):
    with open(path, "w") as fh:
        fh.write(text)


def _no_more_user_namespaces(libc, uid, gid):
    """Enter a user namespace of this run's own, allow none below it, and keep no
    capability in it.  Without it the judged code (bubblewrap made no user namespace: the
    judge is root) could create one, and a mount namespace in it, and mount a ramfs the
    judge's memory sample does not see (bubblewrap's --disable-userns needs its own user
    namespace, which cannot map the run's uid)."""
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)   # the uid change cleared it: /proc/self is root's
    if libc.unshare(CLONE_NEWUSER) != 0:
        _fail(f"unshare(CLONE_NEWUSER): {os.strerror(ctypes.get_errno())}")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _write("/proc/sys/user/max_user_namespaces", "0")

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    if libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()) != 0:
        _fail(f"capset: {os.strerror(ctypes.get_errno())}")


def main():
    with open(f"{HERE}/config.json") as fh:
        text = fh.read()
    boot = json.loads(text)["boot"]
    libc = ctypes.CDLL(None, use_errno=True)
    if os.getuid() == 0:
        uid, gid = int(boot["uid"]), int(boot["gid"])
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:
            _fail("could not drop root")
        _no_more_user_namespaces(libc, uid, gid)
    number = KEYCTL.get(platform.machine())
    if number is None:
        _fail(f"no keyctl system call number known for {platform.machine()}")
    libc.syscall.restype = ctypes.c_long
    if libc.syscall(ctypes.c_long(number), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING),
                    ctypes.c_void_p(None)) < 0:
        _fail(f"keyctl(JOIN_SESSION_KEYRING): {os.strerror(ctypes.get_errno())}")
    nproc, nofile = int(boot["nproc"]), int(boot["nofile"])
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("prctl(PR_SET_NO_NEW_PRIVS) failed")
    if boot.get("undumpable") and libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        _fail("prctl(PR_SET_DUMPABLE) failed")
    if json.loads(text).get("probe_only"):   # the judge's probe of the sandbox
        return
    sys.argv = [f"{HERE}/child.py", text]
    runpy.run_path(f"{HERE}/child.py", run_name="__main__")


if __name__ == "__main__":
    try:
        main()
    except OSError as exc:
        _fail(f"{type(exc).__name__}: {exc}")
