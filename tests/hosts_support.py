"""Hosts in network namespaces for tests: a tag and subnet of their own per test, and the sweep that removes them.

Test tags are ``t<worker><4 random characters>`` (worker: pytest-xdist's index, 0 without xdist) on a /24 of
198.19.0.0/16 that no route on the machine uses yet (worker w's third octet is w modulo 10), so two workers, two
test runs at once, or a test run beside a local ``--hosts`` cluster (tag ``kz`` on 198.18.0.0/24) never share a
bridge or an address.
``python -m tests.hosts_support sweep`` removes every test tag's namespaces, links and processes: the test command
runs it at its end and says what it removed.
"""

import os
import random
import re
import subprocess
import sys

from kafka_zk.tools.hosts import Hosts

TEST_TAG = re.compile(r"t\d[a-z0-9]{0,4}$")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _worker_index():
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) % 10 if worker.startswith("gw") else 0


def fresh_hosts(**options):
    """Hosts with a tag and a /24 nobody else on this machine uses now; ``options`` go to Hosts."""
    routes = subprocess.run(["ip", "-o", "route", "show"], capture_output=True, text=True).stdout
    taken = {int(octet) for octet in re.findall(r"^198\.19\.(\d+)\.0/24 ", routes, re.MULTILINE)}
    # Each worker its own residue class, so two workers of one run never even pick the same /24.
    free = [octet for octet in range(256) if octet not in taken and octet % 10 == _worker_index()]
    if not free:
        raise AssertionError("every /24 of 198.19.0.0/16 is in use")
    tag = "t%d%s" % (_worker_index(), "".join(random.choice(_ALPHABET) for _ in range(4)))
    return Hosts(tag=tag, subnet="198.19.%d" % random.choice(free), **options)


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
