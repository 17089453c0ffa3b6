"""inbound/'s events: the names of the folders that appeared or changed.

Through inotify (watchfiles, a thread of its own) where the kernel sees the
writes; by polling where it does not -- NFS, where inotify misses what other
machines write: ``gradekit serve --poll SECONDS``. Either way a full look every
``rescan`` seconds catches anything an event missed (inotify's queue can
overflow in a rush), so an event is a hint to look now, never the only way a
hand-in is found.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path

RESCAN = 30.0  # seconds between full looks at inbound/, whatever the events


class Watcher:
    """Puts the names of inbound/'s new or changed entries on ``self.names`` (``None``: look at all)."""

    def __init__(self, inbound: Path, poll: float = 0.0, rescan: float = RESCAN):
        self.inbound, self.poll, self.rescan = Path(inbound), poll, rescan
        self.names: queue.Queue[str | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gradekit-serve-watch", daemon=True)

    def start(self) -> None:
        self.names.put(None)  # a first full look: what arrived while no service ran
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        if self.poll:
            self._polling()
        else:
            self._inotify()

    def _inotify(self) -> None:
        from watchfiles import watch

        last = time.monotonic()
        # rust_timeout bounds each wait, so that a stop and the periodic rescan are seen
        for changes in watch(
            self.inbound,
            stop_event=self._stop,
            yield_on_timeout=True,
            rust_timeout=1000,
            recursive=True,
            debounce=50,
            step=20,
            raise_interrupt=False,
        ):
            for _, path in changes:
                rel = Path(path).relative_to(self.inbound).parts if path.startswith(str(self.inbound)) else ()
                if rel:
                    self.names.put(rel[0])
            if time.monotonic() - last >= self.rescan:
                self.names.put(None)
                last = time.monotonic()

    def _polling(self) -> None:
        seen: dict[str, tuple[int, int]] = {}
        last = time.monotonic()
        while not self._stop.wait(self.poll):
            try:
                names = os.listdir(self.inbound)
            except OSError:
                continue
            for name in names:
                try:
                    st = os.lstat(self.inbound / name)
                except OSError:
                    continue
                stamp = (st.st_ino, st.st_mtime_ns)
                if seen.get(name) != stamp:
                    seen[name] = stamp
                    self.names.put(name)
            if time.monotonic() - last >= self.rescan:
                self.names.put(None)
                last = time.monotonic()
