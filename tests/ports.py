"""Listening ports for test servers, picked below the kernel's ephemeral range.

A port from bind(0) comes out of the ephemeral range, where any outgoing connection made before the server
binds it can take it ("Address already in use" at the broker's start). Ports below that range are only ever
taken by a listener, which the pick's own bind sees. Under pytest-xdist each worker picks from its own share of
that range (PYTEST_XDIST_WORKER gw<i> of PYTEST_XDIST_WORKER_COUNT), so two workers never race for one port.
"""

from __future__ import annotations

import itertools
import os
import random
import socket

LOWEST = 10000


def _ephemeral_start() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as handle:
            return int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _share(lowest: int, end: int) -> tuple[int, int]:
    """This process's [first, end) of the test ports: all of them, or its xdist worker's slice."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2:
        return lowest, end
    index = int(worker[2:]) % count
    size = (end - lowest) // count
    return lowest + index * size, lowest + (index + 1) * size


_FIRST, _RANGE_END = _share(LOWEST, _ephemeral_start())
# A random start per process keeps two test runs on one machine from walking the same ports.
_next = itertools.count(random.randrange(_FIRST, _RANGE_END - 2000) + os.getpid() % 1000)


def is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive free ports, none of which this process has handed out before."""
    for _ in range(_RANGE_END - _FIRST):
        base = next(_next)
        if base + count >= _RANGE_END:
            raise AssertionError("ran out of test ports below %d" % _RANGE_END)
        for _ in range(count - 1):
            next(_next)
        if all(is_free(base + offset) for offset in range(count)):
            return base
    raise AssertionError("no run of %d free ports" % count)


def free_port() -> int:
    return free_ports(1)
