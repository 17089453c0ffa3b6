"""How a sandbox process is started: bubblewrap's command line and the limits.

The sandbox sees a read-only system (/usr, /lib*, a few files of /etc), the
Python installation and its site-packages (bind-mounted read-only), and a copy of
the worker's own two files (``--ro-bind-data``: no host path of gradekit's) --
and nothing of the course directory: no ``autograder/``, no ``solutions/``, no
gradebook, no secret, no other student. It has a private tmpfs at /tmp, a new
pid, network (no interfaces but a downed loopback), ipc, uts and user
namespace, an empty environment, and it dies with its parent.

Resource limits are set with setrlimit before bwrap starts (CPU, address
space, file size, open files). The process count is capped by a pids cgroup
when the grader may make one (root), else by RLIMIT_NPROC. Inside, the code
runs as uid 65534 with no capabilities and may not make user namespaces.
"""

from __future__ import annotations

import itertools
import os
import resource
import shutil
import signal
import sys
import time
from pathlib import Path

from gradekit.sandbox.limits import Limits

WORKER_DIR = Path(__file__).resolve().parent
WORKER_FILES = ("worker.py", "worker_child.py", "protocol.py")  # all the sandbox runs of gradekit's own code
SANDBOX_UID = 65534  # 'nobody' inside the sandbox

__all__ = ["Limits", "bwrap_path", "start_zygote", "end_sandbox"]


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def sandbox_env() -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "IPYTHONDIR": "/tmp/.ipython",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


class Launch:
    """The argv, the fds to pass and the pre-exec hook for one sandbox process."""

    def __init__(
        self, argv: list[str], pass_fds: tuple[int, ...], preexec, env: dict[str, str], cgroup: Path | None = None
    ):
        self.argv, self.pass_fds, self.preexec, self.env = argv, pass_fds, preexec, env
        self.cgroup = cgroup

    def close_fds(self) -> None:
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass


PIDS_CGROUP = Path("/sys/fs/cgroup/pids")


_GROUPS = itertools.count()


def pids_cgroup(limit: int) -> Path | None:
    """A pids cgroup (v1) of one sandbox's own, where the grader may make one (root).

    The kernel does not apply RLIMIT_NPROC to root's uid, and under bwrap the
    sandboxed uid maps to the grader's; a pids cgroup caps the process count of
    the whole sandbox, forks and detached children included. Each sandbox gets
    a group of its own (named by grader pid and a counter), so no two sandboxes
    share a budget; :func:`remove_cgroup` deletes it when the sandbox is gone,
    and empty groups left by killed graders are swept here.
    """
    if os.geteuid() != 0 or not os.access(PIDS_CGROUP, os.W_OK):
        return None
    base = PIDS_CGROUP / "gradekit"
    for stale in base.iterdir() if base.is_dir() else []:
        owner = stale.name.split("-", 1)[0]
        if stale.is_dir() and owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            try:
                stale.rmdir()  # the grader that made it is gone; fails (EBUSY) if processes remain
            except OSError:
                pass
    group = base / f"{os.getpid()}-{next(_GROUPS)}"
    try:
        group.mkdir(parents=True, exist_ok=True)
        (group / "pids.max").write_text(str(limit))
    except OSError:
        return None
    return group / "cgroup.procs"


def end_sandbox(proc, cgroup: Path | None) -> None:
    """Kill a sandbox's whole process group, reap its bwrap process and remove its cgroup."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()
    remove_cgroup(cgroup)


def remove_cgroup(procs: Path | None) -> None:
    if procs is None:
        return
    for _ in range(50):
        try:
            procs.parent.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)  # the killed processes are still being reaped


def _preexec(limits: Limits, procs: Path | None):
    procs_path = str(procs) if procs else None

    def apply() -> None:
        mib = 1 << 20
        if procs_path:
            with open(procs_path, "w") as fh:
                fh.write(str(os.getpid()))
        else:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory * mib, limits.memory * mib))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size * mib, limits.file_size * mib))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def launch(limits: Limits, sandboxed: bool = True) -> Launch:
    """Build the command that starts a worker, in bwrap unless ``sandboxed`` is False."""
    env = sandbox_env()
    venv = Path(sys.prefix)
    base = Path(sys.base_prefix)
    python_name = Path(sys.executable).name
    procs = pids_cgroup(limits.processes)
    if not sandboxed:
        argv = [sys.executable, "-I", "-B", str(WORKER_DIR / "worker.py")]
        return Launch(argv, (), _preexec(limits, procs), env, procs)

    argv = [
        bwrap_path() or "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        "--hostname",
        "sandbox",
        "--clearenv",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--disable-userns",
    ]
    if os.geteuid() == 0:
        argv += ["--cap-drop", "ALL"]
    for system_dir in ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        if os.path.lexists(system_dir):
            if os.path.islink(system_dir):
                argv += ["--symlink", os.readlink(system_dir), system_dir]
            else:
                argv += ["--ro-bind", system_dir, system_dir]
    for etc in (
        "ld.so.cache",
        "ld.so.conf",
        "ld.so.conf.d",
        "alternatives",
        "localtime",
        "nsswitch.conf",
        "passwd",
        "group",
    ):
        argv += ["--ro-bind-try", f"/etc/{etc}", f"/etc/{etc}"]
    argv += [
        "--proc",
        "/proc",
        # as root, the sandbox's uid maps to host uid 0, and the kernel lets host uid 0 write
        # sysctls (/proc/sys/kernel/core_pattern: code run as root on the host) without any
        # capability: bwrap leaves /proc/sys writable, so cover it (and sysrq) read-only
        "--ro-bind",
        "/proc/sys",
        "/proc/sys",
        "--ro-bind-try",
        "/proc/sysrq-trigger",
        "/proc/sysrq-trigger",
        "--dev",
        "/dev",
        "--size",
        str(limits.tmpfs << 20),
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        str(base),
        str(base),
    ]
    if venv != base:
        argv += ["--ro-bind", str(venv), "/opt/venv"]
        python = f"/opt/venv/bin/{python_name}"
    else:
        python = str(base / "bin" / python_name)
    # the worker's files are copied in (not bind-mounted): a bind mount's host path shows in
    # /proc/self/mountinfo, and gradekit often lives inside the course directory
    data_fds = []
    for name in WORKER_FILES:
        data = os.memfd_create(f"gradekit-{name}")
        os.write(data, (WORKER_DIR / name).read_bytes())
        os.lseek(data, 0, os.SEEK_SET)
        data_fds.append(data)
        argv += ["--ro-bind-data", str(data), f"/opt/gradekit/{name}"]
    argv += [  # the root and /dev are tmpfs mounts bwrap made: read-only once set up, so
        # nothing can be written outside the size-limited /tmp
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--chdir",
        "/tmp",
    ]
    for key, value in env.items():
        argv += ["--setenv", key, value]
    # the options go to bwrap through a file descriptor (--args), not its command line:
    # bwrap is pid 1 in the sandbox, and its /proc/1/cmdline would show the host paths
    fd = os.memfd_create("gradekit-bwrap-args")
    os.write(fd, b"".join(arg.encode() + b"\0" for arg in argv[1:]))
    os.lseek(fd, 0, os.SEEK_SET)
    command = [python, "-I", "-B", "/opt/gradekit/worker.py", "--contained"]
    return Launch([argv[0], "--args", str(fd), *command], (fd, *data_fds), _preexec(limits, procs), env, procs)


def start_zygote(limits: Limits, sandboxed: bool = True):
    """Start a sandbox's worker (the zygote) without waiting for it: (its process, the control
    socket the grading side keeps, its pids cgroup or None). It writes ``ready`` when it is."""
    import socket
    import subprocess

    spec = launch(limits, sandboxed)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        proc = subprocess.Popen(
            spec.argv,
            stdin=theirs.fileno(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=spec.pass_fds,
            preexec_fn=spec.preexec,
            start_new_session=True,
            env=spec.env,
            close_fds=True,
        )
    except BaseException:
        mine.close()
        remove_cgroup(spec.cgroup)
        raise
    finally:
        theirs.close()
        spec.close_fds()
    return proc, mine, spec.cgroup
