"""How long a service started by a JupyterHub lives: no longer than its hub.

The hub starts each of its services as a child (``$JUPYTERHUB_SERVICE_NAME`` set) in a
session of its own, so a hub that dies -- SIGKILL, the OOM killer -- leaves them running,
holding the course's lock and their ports, and the next hub's services would find both
taken. :class:`Hub` notices the hub is gone (the service's parent is no longer the process
that started it) and the service stops as on SIGTERM; :data:`TAKEOVER` is how long the next
hub's service waits for the lock or the port before it gives up. A service that has not
stopped :data:`GRACE` seconds after its hub died (still starting, or a page's warm-up still
running) ends there: what it had taken in is on disk (a ``kill -9`` loses nothing either), and
the next hub's service must not wait on it.

The parent is noted as the process starts (:func:`remember`, the first thing ``gradekit`` does),
not when the service gets to its loop: a hub killed while its service was still starting
(importing, reading the course) would otherwise be taken for a parent that never changed. A
service that finds itself a child of init at start (the hub died before it looked, and init is not
the hub) stops at once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

TAKEOVER = 20.0  # seconds a service waits for what the service of a dead hub still holds
INTERVAL = 0.5  # seconds between two looks at the parent
GRACE = 5.0  # seconds a service whose hub died has to stop on its own before it is ended


_FIRST_PARENT: int | None = None  # the parent as the process started (remember)


def remember() -> None:
    """Note this process's parent now, before anything slow: the hub, for a service it started."""
    global _FIRST_PARENT
    if _FIRST_PARENT is None:
        _FIRST_PARENT = os.getppid()


def _is_hub(pid: int) -> bool:
    try:
        return b"jupyterhub" in open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return False


class Hub:
    """The hub that started this process, if one did."""

    def __init__(self) -> None:
        self.started_by_hub = bool(os.environ.get("JUPYTERHUB_SERVICE_NAME"))
        self.parent = _FIRST_PARENT if _FIRST_PARENT is not None else os.getppid()
        # a child of init from the start: its hub died before it was looked at (unless init is the hub,
        # as in a container whose first process is jupyterhub)
        self.orphaned = self.started_by_hub and self.parent == 1 and not _is_hub(1)

    def gone(self) -> bool:
        """The hub that started this service has died (never true for a process no hub started)."""
        return self.started_by_hub and (self.orphaned or os.getppid() != self.parent)

    def watch(
        self, on_gone: Callable[[], Any], interval: float = INTERVAL, grace: float = GRACE
    ) -> threading.Thread | None:
        """Call ``on_gone`` (once, from a daemon thread) when the hub dies; end the process if it still
        runs ``grace`` seconds later."""
        if not self.started_by_hub:
            return None

        def look() -> None:
            stop = threading.Event()
            while not stop.wait(interval):
                if self.gone():
                    on_gone()
                    if not stop.wait(grace):
                        os._exit(0)
                    return

        thread = threading.Thread(target=look, name="gradekit-hub-watch", daemon=True)
        thread.start()
        return thread
