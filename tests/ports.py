"""Listening ports for test servers, picked below the kernel's ephemeral range.

A port from bind(0) comes out of the ephemeral range, where any outgoing connection made before the server
binds it can take it ("Address already in use" at the broker's start). Ports below that range are only ever
taken by a listener, which the pick's own bind sees.
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


_RANGE_END = _ephemeral_start()
# A random start per process keeps two test runs on one machine from walking the same ports.
_next = itertools.count(random.randrange(LOWEST, _RANGE_END - 2000) + os.getpid() % 1000)


def is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive free ports, none of which this process has handed out before."""
    for _ in range(_RANGE_END - LOWEST):
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
