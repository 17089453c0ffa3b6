"""Timing a command for the benchmark: wall clock, CPU of its whole process tree, peak memory,
and where a ``gradekit autograde`` spends its start-up.

CPU time is reported beside wall time because the machine the benchmark runs
on is shared: other work stretches wall times, much less the CPU a command
uses. CPU here is user + system time of the command and of every process it
started -- workers, fork server, sandboxes, Jupyter kernels -- however they
were parented: this process makes itself the child subreaper (Linux's
PR_SET_CHILD_SUBREAPER), so orphans are handed to it and reaped here, and
their time lands in ``getrusage(RUSAGE_CHILDREN)``.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


SUBREAPER = sys.platform.startswith("linux") and become_subreaper()


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_orphans(timeout: float = 30.0) -> None:
    """Wait for every process handed to this one (a command's leftovers end with it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)


def timed(cmd: list[str], cwd: Path, log: Path, env: dict) -> dict:
    """Run ``cmd`` to completion: wall seconds (until it exits), CPU seconds of its whole tree,
    and the peak RSS of the process itself and of its tree (sampled every 0.1 s)."""
    peak = {"self": 0, "tree": 0}
    done = threading.Event()

    def watch(pid: int) -> None:
        try:
            me = psutil.Process(pid)
            while not done.is_set():
                rss = me.memory_info().rss
                tree = rss + sum(_rss(child) for child in me.children(recursive=True))
                peak["self"], peak["tree"] = max(peak["self"], rss), max(peak["tree"], tree)
                done.wait(0.1)
        except psutil.Error:  # the process has ended
            pass

    cpu_before = _cpu()
    with open(log, "w") as out:
        started = time.perf_counter()
        wall_clock = time.time()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        watcher = threading.Thread(target=watch, args=(proc.pid,), daemon=True)
        watcher.start()
        rc = proc.wait()
        seconds = time.perf_counter() - started
        done.set()
        watcher.join()
    if SUBREAPER:
        _reap_orphans()
    if rc != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {rc} (log: {log}):\n{log.read_text()[-3000:]}")
    return {"seconds": seconds, "cpu": _cpu() - cpu_before, "started": wall_clock,
            "rss_self": peak["self"] or None, "rss_tree": peak["tree"] or None}


def _rss(process) -> int:
    try:
        return process.memory_info().rss
    except psutil.Error:
        return 0


# -- the start-up of one autograde, from its timeline -------------------------------------------

def breakdown(marks: list[tuple], started: float, total: float) -> list[tuple[str, float, float | None]]:
    """Rows (what, seconds since the command started, CPU of the process that reached it) from
    the marks of gradekit's timeline (see gradekit/timeline.py), first submission first."""
    def first(role=None, event=None, pid=None):
        for wall, cpu, p, r, e in marks:
            if (role is None or r == role) and (event is None or e == event) and (pid is None or p == pid):
                return wall, cpu, p
        return None

    rows = []

    def add(label, found):
        if found is not None:
            rows.append((label, found[0] - started, found[1]))

    coordinator = first("coordinator", "main")
    add("coordinator: interpreter started, command parsed", coordinator)
    add("coordinator: course loaded, class listed", first("coordinator", "students listed"))
    add("coordinator: unchanged results found", first("coordinator", "unchanged checked"))
    add("coordinator: grading processes asked for", first("coordinator", "runner started"))
    pipeline = first("grading", "pipeline")
    worker = first("worker", "forked")
    workers = {m[2] for m in marks if m[3] == "worker"}
    if pipeline is not None:
        where = ("coordinator" if coordinator is not None and pipeline[2] == coordinator[2] else
                 "first worker" if pipeline[2] in workers else "fork server")
        if where == "first worker":
            add("first worker forked", worker)
        add(f"{where}: grading code imported, pipeline started", pipeline)
        add(f"{where}: templates loaded (and checked, where the preflight runs there)",
            first("grading", "templates checked", pipeline[2]))
        add(f"{where}: hidden graders collected (pytest)", first("grading", "graders collected", pipeline[2]))
        if where != "first worker":
            add("first worker forked", worker)
    else:
        add("first worker forked", worker)
    pid = worker[2] if worker else (pipeline[2] if pipeline else None)
    add("first worker: sandbox started (or taken over)", first("grading", "sandbox launched", pid))
    add("first worker: first submission waits for the sandbox", first("grading", "sandbox wait", pid))
    add("first worker: sandbox ready (numpy, IPython imported in it)", first("grading", "sandbox ready", pid))
    add("first submission graded", first("grading", "graded"))
    add("coordinator: first result recorded", first("coordinator", "result"))
    results = [m for m in marks if m[3] == "coordinator" and m[4] == "result"]
    if results:
        rows.append(("coordinator: last result recorded", results[-1][0] - started, results[-1][1]))
    add("coordinator: gradebook closed", first("coordinator", "gradebook closed"))
    add("coordinator: summary printed", first("coordinator", "summary printed"))
    rows.append(("command exited", total, None))
    return rows


def import_costs(python: str, module: str, env: dict, top: int = 8) -> list[tuple[str, float]]:
    """What importing ``module`` costs, by package: (package, seconds), from the "self" column of
    ``python -X importtime`` summed over each package's modules (``_pytest`` counted as pytest)."""
    proc = subprocess.run([python, "-X", "importtime", "-c", f"import {module}"], env=env,
                          capture_output=True, text=True)
    totals: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or line.count("|") != 2:
            continue
        own, _, name = line[len("import time:"):].split("|")
        try:
            seconds = int(own.strip()) / 1e6
        except ValueError:
            continue
        package = name.strip().split(".")[0].lstrip("_") or name.strip()
        totals[package] = totals.get(package, 0.0) + seconds
    return sorted(totals.items(), key=lambda kv: -kv[1])[:top]
