"""The address-space cap a grader's function runs under while the student's code calls it back.

A function of the grader's that the student's code calls (:mod:`gradekit.sandbox.callbacks`)
runs in the grading process, on arguments of the student's choosing: a table of a size the
student chose could fill the machine. While one runs, the process's address space is capped
(RLIMIT_AS, the soft limit) at what the process holds plus ``callback_memory``, so that such a
table fails to allocate -- a MemoryError in that function, which the callbacks count as the
student's code going past a limit.

RLIMIT_AS belongs to the process, not to a sandbox or a thread: :data:`ADDRESS_SPACE` is the
process's one cap, which every sandbox's callbacks in the process hold and let go of. The first
holder's cap stands while any holds it; the last to let go puts back the limit it replaced.
"""

from __future__ import annotations

import os
import resource
import threading


def address_space() -> int:
    """The bytes of address space this process holds now."""
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


class AddressSpaceCap:
    """The process's address-space limit, lowered while anyone holds the cap (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0  # the grader's functions running under the cap now
        self._replaced: tuple[int, int] = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)  # the limit it lowered

    def hold(self, cap: int) -> None:
        """Cap this process's address space at ``cap`` bytes (never above its own limits), or, if
        another holds the cap already, share theirs. Each hold is ended by one :meth:`release`."""
        with self._lock:
            if self._holders == 0:
                soft, hard = resource.getrlimit(resource.RLIMIT_AS)
                if soft != resource.RLIM_INFINITY:
                    cap = min(cap, soft)
                if hard != resource.RLIM_INFINITY:
                    cap = min(cap, hard)
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
                self._replaced = (soft, hard)
            self._holders += 1

    def release(self) -> None:
        """End one :meth:`hold`; the last puts back the limit the first replaced."""
        with self._lock:
            self._holders -= 1
            if self._holders == 0:
                resource.setrlimit(resource.RLIMIT_AS, self._replaced)


ADDRESS_SPACE = AddressSpaceCap()  # this process's (RLIMIT_AS is per process)
