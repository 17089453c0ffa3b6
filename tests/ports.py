"""Ports for the servers the tests start: drawn below the kernel's ephemeral range, apart per worker.

``bind(("127.0.0.1", 0))`` hands out a port from the range the kernel also takes outgoing
connections' local ports from (net.ipv4.ip_local_port_range; 32768-60999 here). Closed again and
given to a server that binds it seconds later (a hub starts its services one after another), it
can be taken meanwhile by any connection on the machine: a hub's LTI service met "127.0.0.1:44743
is taken by another process" while three other pytest workers flooded their own hubs. A port here
is drawn below that range, from a slice of its own for each pytest-xdist worker (gw0, gw1, ...), is
free when drawn, and is never drawn twice by a process.
"""

from __future__ import annotations

import os
import random
import re
import socket

LOW = 10_000  # above the well-known and registered ports servers on a machine are usually given
SLICES = 8  # the range is cut into this many, one per worker (worker n takes slice n mod SLICES)

_drawn: set[int] = set()
_rng = random.Random()


def _ephemeral_start() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def _slice() -> range:
    worker = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    index = int(worker.group(1)) % SLICES if worker else 0
    width = (max(_ephemeral_start(), LOW + SLICES) - LOW) // SLICES
    return range(LOW + index * width, LOW + (index + 1) * width)


def free_ports(n: int) -> list[int]:
    """``n`` ports nothing listens on now, none drawn before by this process."""
    ports = _slice()
    out: list[int] = []
    for port in _rng.sample(ports, len(ports)):
        if len(out) == n:
            break
        if port in _drawn:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _drawn.add(port)
        out.append(port)
    if len(out) < n:
        raise RuntimeError(f"no {n} free port(s) left in {ports}")
    return out


def free_port() -> int:
    return free_ports(1)[0]
