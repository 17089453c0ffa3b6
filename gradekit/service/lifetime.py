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
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

TAKEOVER = 20.0  # seconds a service waits for what the service of a dead hub still holds
INTERVAL = 0.5  # seconds between two looks at the parent
GRACE = 5.0  # seconds a service whose hub died has to stop on its own before it is ended


class Hub:
    """The hub that started this process, if one did."""

    def __init__(self) -> None:
        self.started_by_hub = bool(os.environ.get("JUPYTERHUB_SERVICE_NAME"))
        self.parent = os.getppid()

    def gone(self) -> bool:
        """The hub that started this service has died (never true for a process no hub started)."""
        return self.started_by_hub and os.getppid() != self.parent

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
