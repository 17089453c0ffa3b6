"""The untrusted side: the zygote that forks a child per submission, inside the sandbox.

Started as ``python -I worker.py --contained`` inside bubblewrap (or, with
--no-sandbox, as a plain child process), it imports numpy and IPython once and
then forks a child per submission (see :func:`main`); each child answers the
grader's requests (:mod:`worker_child`, where the requests are listed). This
module, :mod:`worker_child` and :mod:`protocol` are all of gradekit that runs in
the sandbox (``bwrap.WORKER_FILES``): they import the standard library, numpy
and IPython only, and as little as they can before the zygote says it is ready
-- every sandbox pays for what they import when it starts.
"""

import os
import signal
import sys
import time

WORK = os.path.join("/tmp", "work")  # a child's working folder


def main():
    """The zygote: import once, then fork one child per submission.

    The grader talks to the zygote over a control socket (fd 0). For each
    submission it sends ``spawn`` with a fresh socket (SCM_RIGHTS); the zygote
    forks a child that serves that socket only -- it closes the control
    socket before any student code runs -- and waits for it while listening
    for ``kill``. When the child is gone the zygote kills whatever it left
    behind (``kill(-1)`` inside the sandbox's pid namespace), wipes /tmp and
    answers ``idle``. So nothing of one submission survives into the next,
    and a student's processes never hold the control channel.
    """
    import socket

    contained = "--contained" in sys.argv
    control = socket.socket(fileno=os.dup(0))
    _quiet_std_streams()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import protocol as P
    import worker_child

    shell = _ready_shell()
    if contained:
        # children run as the same uid: make the zygote impossible for them to ptrace
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    channel = P.Channel(control)
    P.write_frame(channel, {"op": "ready"})
    while True:
        fds = _next_spawn(control)
        if fds is None:  # the grader has gone
            return
        os.makedirs(WORK, exist_ok=True)
        pid = _fork(contained)
        if pid is None:  # the process limit is exhausted even after a clean-up: report, carry on
            _close(fds)
            P.write_frame(channel, {"op": "idle", "status": -1})
            continue
        if pid == 0:  # the child (its frames are the worker's own: serve, main, <module>)
            serve(control, fds, shell, P, worker_child.Child)
        _close(fds)
        status = _wait_for_child(control, pid)
        if status is None:  # the grader has gone: the child was killed
            return
        _clean_up_after(pid, contained)
        P.write_frame(channel, {"op": "idle", "status": os.waitstatus_to_exitcode(status)})


def _next_spawn(control):
    """The descriptors of the grader's next ``spawn``: the child's socket and its progress file;
    None once the control socket has closed."""
    import socket

    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 2)
        except OSError:
            return None
        if not data:
            return None
        if fds:
            return fds


def serve(control, fds, shell, P, child):
    """The forked child: without the control socket, in a session of its own, it answers the
    grader on the socket passed in ``fds`` until that closes (``child``: worker_child.Child),
    then exits."""
    import socket

    try:
        control.close()
        os.setsid()
        os.chdir(WORK)
        channel = P.Channel(socket.socket(fileno=fds[0]))
        child(channel, shell, P, _progress_map(fds[1:])).answer_until_closed()
    finally:
        os._exit(0)


def _wait_for_child(control, pid):
    """The child's wait status once it has ended; it is killed when the grader sends ``kill``,
    and killed at once, None returned, when the control socket closes."""
    import select

    pidfd = os.pidfd_open(pid)
    killed = False
    watched = [control, pidfd]
    while True:
        ready, _, _ = select.select(watched, [], [])
        if pidfd in ready:
            break
        msg = control.recv(1 << 16)
        if not msg:
            os.kill(pid, signal.SIGKILL)
            return None
        if b"kill" in msg and not killed:
            killed = True
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    return status


def _clean_up_after(pid, contained):
    """Kill whatever the child left running and wipe what it wrote: all of /tmp in the sandbox,
    its working folder outside it."""
    import shutil

    if contained:
        _kill_everything_else()
    else:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for entry in os.listdir("/tmp") if contained else [WORK]:
        path = os.path.join("/tmp", entry) if contained else entry
        _wipe(path, shutil)


def _close(fds):
    for fd in fds:
        os.close(fd)


def _ready_shell():
    """The IPython shell every child runs the student's cells in, set up once in the zygote."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import numpy  # noqa: F401  (ready before student code, as in a notebook kernel)
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance(colors="nocolor", history_length=0, cache_size=0)
    assert shell.history_manager is not None  # InteractiveShell.instance() made one
    shell.history_manager.enabled = False
    _skip_token_transforms_on_plain_python(shell)
    # the first run_cell costs ~0.2 s of lazy set-up: pay it here, once, not in every child
    shell.run_cell("import numpy as np\n_ = np.zeros(1).sum()", store_history=False)
    shell.reset(new_session=False)
    return shell


def _quiet_std_streams():
    """Point fds 0/1/2 at /dev/null: the student's prints can never look like a frame."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _progress_map(fds):
    """The progress file (a memfd of the grader's), mapped; None without one."""
    if not fds:
        return None
    import mmap

    try:
        return mmap.mmap(fds[0], mmap.PAGESIZE)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fds[0])


def _skip_token_transforms_on_plain_python(shell):
    """Let IPython re-tokenize a cell for its magics only when the cell is not plain Python.

    IPython's token transforms (``%magic``, ``a = %magic``, ``a = !cmd``,
    ``!cmd``, ``obj?``) all rewrite text that Python cannot parse, so on a
    cell that parses they change nothing -- yet tokenizing it in Python costs
    most of a cell's run time (about 0.7 ms a cell). A cell that does not
    parse still goes through every transform, as in a notebook.
    """
    import ast

    manager = shell.input_transformer_manager
    token_transforms = manager.do_token_transforms

    def do_token_transforms(lines):
        try:
            ast.parse("".join(lines))
        except Exception:  # noqa: BLE001 - SyntaxError, and whatever else: let IPython decide
            return token_transforms(lines)
        return lines

    manager.do_token_transforms = do_token_transforms


def _kill_everything_else():
    """SIGKILL every process in this pid namespace but its init and this one, until none is left.

    One kill(-1) can miss children forked while it runs (a fork loop), so repeat
    until the kernel finds nothing to signal.
    """
    for _ in range(200):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        time.sleep(0.005)


def _fork(contained):
    """fork(), after clearing leftovers if the process limit is in the way; None if it stays full."""
    for tried in range(5):
        try:
            return os.fork()
        except BlockingIOError:  # EAGAIN: the pids limit
            if contained:
                _kill_everything_else()
            time.sleep(0.05 * (tried + 1))
    return None


def _wipe(path, shutil):
    def unlock(func, target, _exc):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=unlock)
        else:
            os.unlink(path)
    except OSError:
        pass


if __name__ == "__main__":
    main()
