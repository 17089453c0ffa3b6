"""gradekit.sandbox: student code in the real bubblewrap sandbox.

Every test here runs real bwrap. The student's code is given as cells and
called through the public Sandbox API, as the graders do.
"""

from __future__ import annotations

import os
import socket
import textwrap
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, STUDENTS, with_solutions
from processes import Tracker
from gradekit.errors import CodeFailure
from gradekit.graders import check
from gradekit.sandbox.limits import Limits
from gradekit.sandbox.bwrap import bwrap_path
from gradekit.sandbox.client import Sandbox, SandboxCrashed, SandboxTimeout, StudentCodeError

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

PROBES = textwrap.dedent('''
    import os, socket

    def probe_path(path):
        """What the sandbox can learn about a path: a list of what worked."""
        seen = []
        try:
            os.stat(path)
            seen.append("stat")
        except OSError:
            pass
        try:
            seen.append(("list", sorted(os.listdir(path))))
        except OSError:
            pass
        try:
            with open(path, "rb") as fh:
                seen.append(("read", len(fh.read())))
        except OSError:
            pass
        return seen

    def try_write(path, nbytes=10):
        try:
            with open(path, "wb") as fh:
                fh.write(b"x" * nbytes)
            return "written"
        except OSError as exc:
            return f"{type(exc).__name__}: {exc}"

    def read_text(path):
        with open(path) as fh:
            return fh.read()

    def exists(path):
        return os.path.exists(path)

    def connect_tcp(host, port, timeout=2.0):
        try:
            s = socket.create_connection((host, port), timeout=timeout)
            s.close()
            return "connected"
        except OSError as exc:
            return f"{type(exc).__name__}: {exc}"

    def send_udp(host, port):
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(b"hello", (host, port))
            return "sent"
        except OSError as exc:
            return f"{type(exc).__name__}: {exc}"

    def connect_abstract(name):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\\0" + name)
            return "connected"
        except OSError as exc:
            return f"{type(exc).__name__}: {exc}"

    def resolve(name):
        try:
            return str(socket.getaddrinfo(name, 80))
        except OSError as exc:
            return f"{type(exc).__name__}: {exc}"

    def interfaces():
        return sorted(name for _, name in socket.if_nameindex())

    def environment():
        return dict(os.environ)

    def all_environ_blobs():
        """The environment of every process the sandbox can see in /proc."""
        out = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/environ", "rb") as fh:
                        out.append(fh.read().decode("latin-1"))
                except OSError:
                    pass
        return out

    def cmdlines():
        out = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as fh:
                        out.append(fh.read().replace(b"\\0", b" ").decode("latin-1"))
                except OSError:
                    pass
        return out

    def ids():
        return os.getuid(), os.geteuid(), os.getgid()
''')


def _sandbox(limits: Limits | None = None, source: str = PROBES) -> Sandbox:
    sb = Sandbox(limits or Limits())
    results = sb.run_cells([{"id": "probes", "source": source}])
    assert all(r["ok"] for r in results), results
    return sb


@pytest.fixture(scope="module")
def sandbox():
    sb = _sandbox()
    yield sb
    sb.shutdown()


@pytest.fixture
def tracker():
    """This test's own cgroup, the test's process in it: every process the sandbox starts for it (the
    student's, however detached) is in it, and none of another run's."""
    tracker = Tracker(uuid.uuid4().hex[:12], "gksandbox")
    with tracker.entered():
        yield tracker
    tracker.close()


def _marker_processes(tracker: Tracker, marker: str) -> list[int]:
    """Pids of this test's live (non-zombie) processes whose command line contains the marker."""
    return list(tracker.alive(marker))


def _wait_until_gone(tracker: Tracker, marker: str, patience: float = 15.0) -> list[int]:
    deadline = time.monotonic() + patience
    while True:
        left = _marker_processes(tracker, marker)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


# -- network ---------------------------------------------------------------------------

def test_no_connection_to_the_host_loopback(sandbox):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        # the port is open for the grader ...
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        # ... but not for the student
        assert sandbox.call("connect_tcp", ("127.0.0.1", port)) != "connected"
    finally:
        server.close()


@pytest.mark.parametrize("host, port", [("1.1.1.1", 53), ("8.8.8.8", 443), ("93.184.216.34", 80)])
def test_no_connection_outside(sandbox, host, port):
    result = sandbox.call("connect_tcp", (host, port))
    assert result.startswith("OSError") or "unreachable" in result.lower() or "Error" in result, result
    assert result != "connected"
    assert sandbox.call("send_udp", (host, port)) != "sent"


def test_no_name_resolution_and_only_loopback(sandbox):
    assert sandbox.call("resolve", ("example.com",)).startswith("gaierror")
    assert sandbox.call("interfaces") == ["lo"]


def test_no_abstract_unix_socket_of_the_host(sandbox):
    name = f"gradekit-test-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + name)
    server.listen(1)
    try:
        assert sandbox.call("connect_abstract", (name,)) != "connected"
    finally:
        server.close()


# -- what the sandbox can see ------------------------------------------------------------

def test_course_files_are_not_visible(sandbox, course, monkeypatch):
    monkeypatch.delenv("GRADEKIT_SECRET")
    course.course.secret()  # writes .gradekit/secret
    course.generate()
    root = course.root
    paths = [root, root / "autograder", root / "autograder" / "self_attention" / "test_softmax.py",
             root / "solutions" / "self_attention" / "reference.py", root / "gradebook.db",
             root / ".gradekit", root / ".gradekit" / "secret", root / "nbgrader_config.py",
             root / "release" / STUDENTS[0],
             REPO, REPO / "autograder", REPO / "solutions" / "self_attention" / "reference.py",
             REPO / "gradekit" / "runners" / "batch.py", REPO / "tests"]
    for path in paths:
        assert path.exists(), path  # the grader sees it
        assert sandbox.call("probe_path", (str(path),)) == [], path


def test_home_and_system_are_minimal(sandbox):
    assert sandbox.call("probe_path", ("/root",)) in ([], ["stat", ("list", [".pyenv"])])
    assert sandbox.call("probe_path", ("/etc/shadow",)) == []
    assert sandbox.call("probe_path", ("/etc/ssh",)) == []
    assert sandbox.call("probe_path", ("/work",)) == []


def test_secret_not_in_the_environment(sandbox):
    assert os.environ.get("GRADEKIT_SECRET")  # the grader has it
    env = sandbox.call("environment")
    assert "GRADEKIT_SECRET" not in env
    assert not any(os.environ["GRADEKIT_SECRET"] in v for v in env.values())
    assert env.get("HOME") == "/tmp"
    for blob in sandbox.call("all_environ_blobs"):
        assert "GRADEKIT_SECRET" not in blob and os.environ["GRADEKIT_SECRET"] not in blob


def test_host_processes_are_not_visible(sandbox):
    lines = sandbox.call("cmdlines")
    assert lines  # the sandbox's own processes
    assert not any("pytest" in line for line in lines)
    assert len(lines) < 10


def test_runs_as_nobody(sandbox):
    assert sandbox.call("ids") == (65534, 65534, 65534)


# -- file system -------------------------------------------------------------------------

def test_tmp_is_private(sandbox):
    name = f"/tmp/gradekit-test-{uuid.uuid4().hex}"
    assert sandbox.call("try_write", (name,)) == "written"
    assert sandbox.call("exists", (name,)) is True
    assert not os.path.exists(name)  # not on the host
    other = _sandbox()
    try:
        assert other.call("exists", (name,)) is False  # not in another sandbox
    finally:
        other.shutdown()


def test_tmp_is_wiped_between_submissions():
    sb = _sandbox()
    try:
        name = f"/tmp/gradekit-test-{uuid.uuid4().hex}"
        assert sb.call("try_write", (name,)) == "written"
        sb.run_cells([{"id": "probes", "source": PROBES}])  # the next submission
        assert sb.call("exists", (name,)) is False
    finally:
        sb.shutdown()




@pytest.mark.parametrize("path", [
    "/usr/gk-test", "/usr/lib/gk-test", "/bin/gk-test", "/opt/gradekit/gk-test", "/opt/gradekit/protocol.py",
    "/opt/venv/gk-test", "/proc/gk-test",
    "/gk-test", "/etc/gk-test", "/opt/gk-test", "/root/gk-test", "/dev/shm/gk-test",
])
def test_writes_outside_tmp_fail(sandbox, path):
    result = sandbox.call("try_write", (path,))
    assert result != "written" and "Error" in result


def test_nothing_written_survives_into_the_next_submission():
    """What one student's code writes anywhere must be gone when the next student's code runs."""
    sb = _sandbox()
    try:
        paths = ["/tmp/gk-note", "/gk-note", "/etc/gk-note", "/opt/gk-note", "/root/gk-note", "/dev/shm/gk-note"]
        for path in paths:
            sb.call("try_write", (path,))
        sb.run_cells([{"id": "probes", "source": PROBES}])  # the next submission
        survivors = [p for p in paths if sb.call("exists", (p,))]
        assert survivors == []
    finally:
        sb.shutdown()


def test_worker_files_unchanged_after_write_attempt(sandbox):
    before = sandbox.call("read_text", ("/opt/gradekit/protocol.py",))
    sandbox.call("try_write", ("/opt/gradekit/protocol.py",))
    assert sandbox.call("read_text", ("/opt/gradekit/protocol.py",)) == before


def test_file_size_limit():
    sb = _sandbox(Limits(file_size=1, tmpfs=64))
    try:
        assert sb.call("try_write", ("/tmp/small", 512 << 10)) == "written"
        result = sb.call("try_write", ("/tmp/big", 8 << 20))
        assert result != "written" and "too large" in result.lower(), result
        # the process survives the attempt
        assert sb.call("exists", ("/tmp/small",)) is True
    finally:
        sb.shutdown()


def test_tmpfs_size_limit():
    sb = _sandbox(Limits(file_size=64, tmpfs=4))
    try:
        parts = [sb.call("try_write", (f"/tmp/part{i}", 1 << 20)) for i in range(8)]
        assert parts[0] == "written"
        assert any("No space" in p for p in parts), parts
    finally:
        sb.shutdown()


# -- resources ---------------------------------------------------------------------------

STRESS = textwrap.dedent('''
    import os, sys, time

    state = {"calls": 0}

    def count():
        state["calls"] += 1
        return state["calls"]

    def alloc_bytes(n):
        return len(bytearray(n))

    def alloc_numpy(n):
        import numpy as np
        a = np.ones(n // 8)
        return float(a.sum())

    def grow():
        chunks = []
        while True:
            chunks.append(bytearray(64 << 20))

    def spin():
        while True:
            pass

    def sleep_forever():
        time.sleep(10_000)

    def leave(code=4):
        sys.exit(code)

    def hard_exit():
        os._exit(3)

    def kill_self():
        import signal
        os.kill(os.getpid(), signal.SIGKILL)

    def fork_bomb(marker, n=400):
        made = 0
        error = None
        for _ in range(n):
            try:
                pid = os.fork()
            except OSError as exc:
                error = f"{type(exc).__name__}: {exc}"
                break
            if pid == 0:
                try:
                    os.setsid()              # detach from the worker
                    os.execv("/usr/bin/sleep", [marker, "600"])
                finally:
                    os._exit(0)
            made += 1
        return made, error

    def fork_loop_forever(marker):
        while True:
            try:
                if os.fork() == 0:
                    os.setsid()
                    os.execv("/usr/bin/sleep", [marker, "600"])
            except OSError:
                time.sleep(0.01)
''')


@pytest.fixture
def stress():
    sb = _sandbox(Limits(call_timeout=2, cell_timeout=5, processes=16), STRESS)
    yield sb
    sb.shutdown()


@pytest.mark.parametrize("func", ["alloc_bytes", "alloc_numpy"])
def test_memory_limit(stress, func):
    with pytest.raises(StudentCodeError) as info:
        stress.call(func, (4 << 30,))
    assert info.value.kind in ("MemoryError", "Crashed", "Timeout")
    assert stress.call("alloc_bytes", (1 << 20,)) == 1 << 20  # works again afterwards


def test_memory_limit_growing(stress):
    with pytest.raises(StudentCodeError):
        stress.call("grow")
    assert stress.call("count") >= 1


@pytest.mark.e2e
def test_endless_loop_times_out_and_the_sandbox_recovers(stress):
    assert stress.call("count") == 1
    assert stress.call("count") == 2
    with pytest.raises(SandboxTimeout) as info:
        stress.call("spin")
    assert info.value.failure is CodeFailure.TIMEOUT and info.value.kind == "Timeout"
    assert "2 s" in info.value.message
    # a fresh process with the cells run again: the state starts over
    assert stress.call("count") == 1
    assert stress.restarts >= 1
    with pytest.raises(SandboxTimeout):
        stress.call("sleep_forever")
    assert stress.call("count") == 1


@pytest.mark.e2e
def test_endless_loop_in_a_cell_does_not_hang_the_run():
    sb = Sandbox(Limits(call_timeout=2, cell_timeout=5))
    try:
        results = sb.run_cells([{"id": "before", "source": "def f():\n    return 41 + 1\n"},
                                {"id": "loop", "source": "while True:\n    pass\n"},
                                {"id": "after", "source": "def g():\n    return 'g'\n"}])
        by_id = {r["id"]: r for r in results}
        assert by_id["loop"]["ok"] is False
        assert by_id["loop"]["error"]
        assert by_id["before"]["ok"] is True and sb.call("f") == 42
    finally:
        sb.shutdown()


def test_sys_exit_in_a_function(stress):
    assert stress.call("count") == 1
    with pytest.raises(StudentCodeError) as info:
        stress.call("leave")
    assert info.value.kind == "SystemExit"
    assert stress.call("count") == 2   # an exception like any other: the process and its state live on


@pytest.mark.parametrize("func, reason", [("hard_exit", "status 3"), ("kill_self", "SIGKILL")])
def test_process_death_in_a_function(stress, func, reason):
    assert stress.call("count") == 1
    with pytest.raises(SandboxCrashed) as info:
        stress.call(func)
    assert info.value.failure is CodeFailure.CRASHED and info.value.kind == "Crashed"
    assert reason in info.value.message
    assert stress.call("count") == 1  # restarted, the cells run again
    assert stress.call("count") == 2


def test_fork_bomb_is_capped_and_cleaned_up(tracker):
    marker = f"gradekit-test-marker-{uuid.uuid4().hex}"
    sb = _sandbox(Limits(call_timeout=5, cell_timeout=10, processes=16), STRESS)
    try:
        made, error = sb.call("fork_bomb", (marker,))
        assert made < 16 and error and "Resource temporarily unavailable" in error
        alive = _marker_processes(tracker, marker)
        assert len(alive) <= 16
        # the next submission in the same sandbox starts without the leftovers
        sb.run_cells([{"id": "stress", "source": STRESS}])
        assert _wait_until_gone(tracker, marker) == []
        made, _ = sb.call("fork_bomb", (marker,))
        assert made > 0 and _marker_processes(tracker, marker)
    finally:
        sb.shutdown()
    assert _wait_until_gone(tracker, marker) == []


@pytest.mark.e2e
def test_endless_fork_loop_times_out_and_leaves_nothing(tracker):
    marker = f"gradekit-test-marker-{uuid.uuid4().hex}"
    sb = _sandbox(Limits(call_timeout=2, cell_timeout=5, processes=16), STRESS)
    try:
        with pytest.raises(SandboxTimeout):
            sb.call("fork_loop_forever", (marker,))
        assert len(_marker_processes(tracker, marker)) <= 16
        assert sb.call("count") == 1  # usable again
    finally:
        sb.shutdown()
    assert _wait_until_gone(tracker, marker) == []


def test_shutdown_leaves_no_sandbox_process(tracker):
    marker = f"gradekit-test-marker-{uuid.uuid4().hex}"
    sb = _sandbox(Limits(processes=16), STRESS)
    assert sb.call("fork_bomb", (marker, 5)) == (5, None)
    deadline = time.monotonic() + 10
    while len(_marker_processes(tracker, marker)) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)  # the children exec the marker command shortly after the fork
    assert len(_marker_processes(tracker, marker)) == 5
    proc = sb.proc
    sb.shutdown()
    assert _wait_until_gone(tracker, marker) == []
    if proc is not None:
        assert proc.poll() is not None


# -- the grader's numpy is not the student's ------------------------------------------------

PATCHES = textwrap.dedent('''
    import numpy as np
    import builtins
    np.allclose = lambda *a, **k: True
    np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
    np.array_equal = lambda *a, **k: True
    np.testing.assert_allclose = lambda *a, **k: None
    builtins.abs = lambda x: 0

    def softmax(x, axis=-1):
        return np.zeros_like(np.asarray(x, dtype=float))

    def check_patched():
        return np.allclose(1, 2)
''')


def test_patched_allclose_stays_in_the_sandbox():
    real = np.allclose
    sb = _sandbox(source=PATCHES)
    try:
        assert sb.call("check_patched") is True  # the student's numpy is patched
        got = sb.call("softmax", (np.array([1.0, 2.0, 3.0]),))
        assert np.allclose is real and not np.allclose(1, 2)
        with pytest.raises(check.Mismatch):
            check.array(got, np.array([0.09003057, 0.24472847, 0.66524096]), what="softmax")
        assert not check.close(got, [0.09003057, 0.24472847, 0.66524096])
    finally:
        sb.shutdown()


@pytest.mark.e2e
def test_patched_numpy_does_not_fool_the_graders(shared_course):
    student = STUDENTS[3]
    key = shared_course.answer_key(student)
    nb = with_solutions(key, {"softmax": PATCHES})
    shared_course.submit(student, nb)
    result = shared_course.grade(student)
    assert result.cell("test_softmax").score == 0
    assert result.cell("test_softmax_stability").score == 0
    # the other exercises are graded with the reference softmax where they use it
    assert result.cell("test_project_qkv").score == 2


PIN_PROBE = textwrap.dedent('''
    import json, os, sys
    from gradekit.runners.cores import pin_to_core
    from gradekit.sandbox.client import Sandbox

    pin_to_core(int(sys.argv[1]))
    with Sandbox() as sandbox:
        sandbox.run_cells([{"id": "a", "source": "import os\\ndef cores():\\n    return sorted(os.sched_getaffinity(0))"}])
        inside = sandbox.call("cores")
    print(json.dumps({"grader": sorted(os.sched_getaffinity(0)), "sandbox": inside}))
''')


@pytest.mark.e2e
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_a_grader_and_its_sandbox_share_one_core_and_workers_spread():
    """pin_to_core(i): the worker and the student's process on the same single core; i and i+1 differ."""
    import json
    import subprocess
    import sys

    seen = []
    for index in (0, 1):
        out = subprocess.run([sys.executable, "-c", PIN_PROBE, str(index)], capture_output=True, text=True,
                             check=True, cwd=REPO)
        cores = json.loads(out.stdout.strip().splitlines()[-1])
        assert len(cores["grader"]) == 1
        assert cores["sandbox"] == cores["grader"]
        seen.append(cores["grader"][0])
    assert seen[0] != seen[1]


@pytest.mark.e2e
def test_a_call_stopped_at_its_deadline_is_the_student_s_time(stress):
    """An endless loop stopped at 2 s is 2 s of the student's code, not the grader's (the class report said
    "10.1 s, of which their code 0.04" beside a 10 s timeout); a call that kills its process counts until then."""
    stress.call("count")
    before = stress.student_seconds
    with pytest.raises(SandboxTimeout):
        stress.call("spin")
    assert 1.9 <= stress.student_seconds - before <= 2.5
    outcomes = stress.map("spin", [((), {})])
    assert isinstance(outcomes[0][1], SandboxTimeout) and 3.9 <= stress.student_seconds - before <= 5.0
    after_map = stress.student_seconds
    with pytest.raises(SandboxCrashed):
        stress.call("hard_exit")
    assert 0 <= stress.student_seconds - after_map <= 2.0
