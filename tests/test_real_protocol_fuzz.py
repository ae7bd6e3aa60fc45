"""Mutation fuzzing of the wire protocol on real brokers: mutants of valid requests of every served API and
version, every codec. Whatever arrives, no broker logs an unhandled error and every broker keeps answering."""

import random
import re
import socket
import struct
import time

import pytest

from kafka_zk.protocol.api_keys import API_SPECS
from tests.cluster_support import wait_for
from tests.protocol_mutants import Targets, mutant_requests
from tests.raw_wire import api_versions_ok, create_topic, host_port, metadata, partition_leaders, request

SEED = 20261123
MUTANTS_PER_VERSION = 14
ANSWER_WAIT_S = 2.0
# What a broker must never log, whatever a client sends.
UNHANDLED = re.compile(r"Traceback|error handling|Unhandled error|periodic task failed|failed to start")


class FuzzConnection:
    """One socket per broker, reopened whenever the broker closes it (its answer to undecodable input)."""

    def __init__(self, bootstrap):
        self.address = host_port(bootstrap)
        self.sock = None

    def exchange(self, payload, answered=True):
        """Send one request; 'answered', 'closed', 'unanswered' (acks=0) or 'waiting' (no answer yet: a long
        wait was asked for)."""
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=10)
        self.sock.settimeout(ANSWER_WAIT_S if answered else 0.05)
        try:
            self.sock.sendall(struct.pack(">i", len(payload)) + payload)
            head = self._read(4)
            if head is None:
                self.close()
                return "closed"
            if self._read(struct.unpack(">i", head)[0]) is None:
                self.close()
                return "closed"
            return "answered"
        except socket.timeout:
            self.close()  # a reply may still come; a fresh connection keeps the next request's answer apart
            return "waiting" if answered else "unanswered"
        except (ConnectionResetError, BrokenPipeError):
            self.close()
            return "closed"

    def _read(self, size):
        chunks = b""
        while len(chunks) < size:
            chunk = self.sock.recv(size - len(chunks))
            if not chunk:
                return None
            chunks += chunk
        return chunks

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def _served_versions(bootstrap):
    response = request(bootstrap, 18, 0, {})
    return [(entry["api_key"], entry["min_version"], entry["max_version"]) for entry in response["api_keys"]]


def _unhandled_lines(broker):
    text = "".join(
        broker.log_path(name).read_text(errors="replace")
        for name in ("server.log", "controller.log", "state-change.log")
    )
    return [line for line in text.splitlines() if UNHANDLED.search(line)]


@pytest.mark.timeout(600)
def test_mutants_of_every_served_api_leave_every_broker_answering(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    topics = ["fuzz-replicated", "fuzz-single"]
    assert create_topic(bootstrap, topics[0], partitions=3, replication_factor=3) == 0
    assert create_topic(bootstrap, topics[1], partitions=1, replication_factor=1) == 0
    for topic, count in zip(topics, (3, 1)):
        wait_for(lambda t=topic, c=count: len(partition_leaders(bootstrap, t)) == c, 30, message="%s leaders" % topic)
    before = {broker.broker_id: len(_unhandled_lines(broker)) for broker in cluster.brokers}

    rng = random.Random(SEED)
    targets = Targets(topics + ["fuzz-missing"], brokers=[b.broker_id for b in cluster.brokers])
    connections = {broker.broker_id: FuzzConnection(broker.bootstrap) for broker in cluster.brokers}
    outcomes = {"answered": 0, "closed": 0, "waiting": 0, "unanswered": 0}
    served = _served_versions(bootstrap)
    assert len(served) >= 21
    try:
        for api_key, low, high in served:
            started, api_outcomes = time.monotonic(), dict.fromkeys(outcomes, 0)
            for version in range(low, high + 1):
                for payload, answered in mutant_requests(rng, api_key, version, targets, MUTANTS_PER_VERSION):
                    broker = rng.choice(cluster.brokers)
                    api_outcomes[connections[broker.broker_id].exchange(payload, answered)] += 1
            print("%-28s %s in %.1fs" % (API_SPECS[api_key].name, api_outcomes, time.monotonic() - started))
            for outcome, count in api_outcomes.items():
                outcomes[outcome] += count
            for broker in cluster.brokers:
                assert broker.is_running(), "broker %d died during %s mutants:\n%s" % (
                    broker.broker_id,
                    API_SPECS[api_key].name,
                    broker.log_tail(),
                )
    finally:
        for connection in connections.values():
            connection.close()

    print("fuzz outcomes: %s" % outcomes)
    assert outcomes["answered"] > outcomes["closed"] / 4  # the mutants are mostly valid enough to be served
    for broker in cluster.brokers:
        assert broker.is_running(), broker.log_tail()
        assert api_versions_ok(broker.bootstrap)
        # Forged control requests (a mutated UpdateMetadata with a higher controller epoch) may legitimately
        # rewrite what a broker believes, as on Kafka; what must hold is that it answers.
        assert "brokers" in metadata(broker.bootstrap, [])
        new_lines = _unhandled_lines(broker)[before[broker.broker_id] :]
        assert not new_lines, "broker %d logged unhandled errors:\n%s" % (broker.broker_id, "\n".join(new_lines[:20]))
    # After all that, ordinary requests still get ordinary answers.
    answer = request(bootstrap, 3, 1, {"topics": [{"name": topics[0]}]})
    assert answer["topics"][0]["name"] == topics[0]
