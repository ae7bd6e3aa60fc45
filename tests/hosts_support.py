"""Hosts in network namespaces for tests: a tag and subnet of their own per test, and the sweep that removes them.

Test tags are ``t<worker><n>`` (worker: pytest-xdist's index, 0 without xdist) on 198.19.<worker*60+n>.0/24, so
two workers, or a test run beside a local ``--hosts`` cluster (tag ``kz`` on 198.18.0.0/24), never share a bridge
or an address. ``python -m tests.hosts_support sweep`` removes every test tag's namespaces, links and processes:
the test command runs it at its end and says what it removed.
"""

import itertools
import os
import re
import subprocess
import sys

from kafka_zk.tools.hosts import Hosts

_counter = itertools.count(1)
TEST_TAG = re.compile(r"t\d[a-z0-9]{0,4}$")


def _worker_index():
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") else 0


def fresh_hosts():
    """Hosts with a tag and a /24 nobody else in this test run uses."""
    worker, number = _worker_index(), next(_counter)
    if number >= 60:
        raise AssertionError("more than 59 host networks in one test worker")
    return Hosts(tag="t%d%s" % (worker, _base36(number)), subnet="198.19.%d" % (worker * 60 + number))


def _base36(number):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    return digits[number // 36] + digits[number % 36] if number >= 36 else digits[number]


def tags_present():
    """The test tags that have a namespace or a bridge on this machine now."""
    tags = set()
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n")
    for line in namespaces:
        name = line.split()[0] if line.strip() else ""
        if "-" in name and TEST_TAG.match(name.split("-", 1)[0]):
            tags.add(name.split("-", 1)[0])
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout.splitlines()
    for line in links:
        match = re.match(r"^\d+: (t\d[a-z0-9]{0,4})(?:-br|v\d+)[@:]", line)
        if match:
            tags.add(match.group(1))
    return sorted(tags)


def sweep():
    """Remove every test tag's hosts; returns what was removed."""
    removed = []
    for tag in tags_present():
        removed += ["%s (tag %s)" % (item, tag) for item in Hosts(tag=tag, subnet="198.19.0").destroy(grace=2.0)]
    return removed


if __name__ == "__main__" and sys.argv[1:] == ["sweep"]:
    left = sweep()
    if left:
        print("tests left hosts behind; removed:\n  " + "\n  ".join(left))
        sys.exit(1)
    print("no namespace, bridge, veth, rule or process left behind by the tests")
