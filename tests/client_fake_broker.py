"""In-process fake brokers speaking the real protocol codec, for testing kafka_zk.client without a cluster."""

import socket
import struct
import threading

import pytest

from kafka_zk.protocol.api_keys import API_SPECS, response_header_version, supported_api_versions
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_request
from kafka_zk.record.batch_header import set_base_offset
from kafka_zk.record.records import decode_batch

_SIZE = struct.Struct(">i")


def sparse_response(api_key, version, correlation_id, body):
    """A response without its frame length, every field the body leaves out at its default: the fakes answer with
    what the client under test reads and no more, so they skip the strict messages the suite holds the broker to."""
    header = _SIZE.pack(correlation_id) + (b"\x00" if response_header_version(api_key, version) >= 1 else b"")
    return header + API_SPECS[api_key].response.encode(body, version)


class FakeCluster:
    """Shared state of a few FakeBrokers: topics {name: {partition: leader id}}, logs {(t, p): [batch bytes]}."""

    def __init__(self, broker_count=1):
        self.topics = {}
        self.logs = {}
        self.controller_id = 0
        self.lock = threading.Lock()
        self.requests = []
        self.fail_next = {}  # (api_key, topic, partition) -> [error codes to answer, in order]
        self.seen_sequences = set()
        self.brokers = [FakeBroker(self, node_id) for node_id in range(broker_count)]

    @property
    def bootstrap(self):
        return ",".join("127.0.0.1:%d" % b.port for b in self.brokers)

    def create_topic(self, name, partitions, leader=0):
        self.topics[name] = {p: (leader if isinstance(leader, int) else leader[p]) for p in range(partitions)}
        for p in range(partitions):
            self.logs.setdefault((name, p), [])

    def records(self, topic, partition):
        """Every record appended to the partition, decoded."""
        out = []
        for batch in self.logs[(topic, partition)]:
            out.extend(decode_batch(batch)[1])
        return out

    def end_offset(self, topic, partition):
        batches = self.logs[(topic, partition)]
        return decode_batch(batches[-1])[0].next_offset if batches else 0

    def stop(self):
        for broker in self.brokers:
            broker.stop()

    def _injected_error(self, api_key, topic, partition):
        queue = self.fail_next.get((api_key, topic, partition))
        return queue.pop(0) if queue else Errors.NONE


class FakeBroker:
    """One listening socket; each connection is served by a thread, one request at a time."""

    def __init__(self, cluster, node_id):
        self.cluster = cluster
        self.node_id = node_id
        self.api_versions = supported_api_versions()
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(8)
        self.port = self._server.getsockname()[1]
        self._connections = []
        self._stopped = False
        threading.Thread(target=self._accept_loop, daemon=True).start()

    def stop(self):
        self._stopped = True
        self._server.close()
        for conn in self._connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def _accept_loop(self):
        while not self._stopped:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self._connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _recv(self, conn, size):
        data = b""
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def _serve(self, conn):
        try:
            while True:
                frame = self._recv(conn, _SIZE.unpack(self._recv(conn, 4))[0])
                header, body = decode_request(frame)
                with self.cluster.lock:
                    self.cluster.requests.append((self.node_id, header.api_key, header.api_version, body))
                    response = getattr(self, "_api_%d" % header.api_key)(header.api_version, body)
                if response is None:
                    continue
                payload = sparse_response(header.api_key, header.api_version, header.correlation_id, response)
                conn.sendall(_SIZE.pack(len(payload)) + payload)
        except (EOFError, OSError):
            conn.close()

    # -- APIs ---------------------------------------------------------------------------------

    def _api_18(self, version, body):  # ApiVersions
        return {
            "error_code": 0,
            "api_keys": [{"api_key": k, "min_version": lo, "max_version": hi} for k, lo, hi in self.api_versions],
        }

    def _api_3(self, version, body):  # Metadata
        cluster = self.cluster
        names = list(cluster.topics) if not body["topics"] else [t["name"] for t in body["topics"]]
        topics = []
        for name in names:
            if name not in cluster.topics:
                if body.get("allow_auto_topic_creation") and version >= 4:
                    cluster.create_topic(name, 1)
                else:
                    topics.append({"error_code": Errors.UNKNOWN_TOPIC_OR_PARTITION, "name": name, "partitions": []})
                    continue
            topics.append(
                {
                    "error_code": 0,
                    "name": name,
                    "partitions": [
                        {
                            "error_code": 0,
                            "partition_index": p,
                            "leader_id": leader,
                            "replica_nodes": [max(leader, 0)],
                            "isr_nodes": [max(leader, 0)],
                        }
                        for p, leader in sorted(cluster.topics[name].items())
                    ],
                }
            )
        return {
            "brokers": [{"node_id": b.node_id, "host": "127.0.0.1", "port": b.port} for b in cluster.brokers],
            "controller_id": cluster.controller_id,
            "cluster_id": "fake",
            "topics": topics,
        }

    def _partition_error(self, api_key, topic, partition):
        cluster = self.cluster
        if topic not in cluster.topics or partition not in cluster.topics[topic]:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        injected = cluster._injected_error(api_key, topic, partition)
        if injected:
            return injected
        if cluster.topics[topic][partition] != self.node_id:
            return Errors.NOT_LEADER_FOR_PARTITION
        return Errors.NONE

    def _api_0(self, version, body):  # Produce
        responses = []
        for topic in body["topics"]:
            parts = []
            for part in topic["partitions"]:
                tp = (topic["name"], part["partition_index"])
                error = self._partition_error(0, *tp)
                base_offset = -1
                if error == Errors.NONE:
                    batch = bytearray(part["records"])
                    header, _ = decode_batch(batch)
                    key = (header.producer_id, tp, header.base_sequence)
                    if header.producer_id >= 0 and key in self.cluster.seen_sequences:
                        error = Errors.DUPLICATE_SEQUENCE_NUMBER
                    else:
                        self.cluster.seen_sequences.add(key)
                        base_offset = self.cluster.end_offset(*tp)
                        set_base_offset(batch, 0, base_offset)
                        self.cluster.logs[tp].append(bytes(batch))
                parts.append({"partition_index": tp[1], "error_code": error, "base_offset": base_offset})
            responses.append({"name": topic["name"], "partitions": parts})
        if body["acks"] == 0:
            return None
        return {"responses": responses}

    def _api_1(self, version, body):  # Fetch
        responses = []
        for topic in body["topics"]:
            parts = []
            for part in topic["partitions"]:
                tp = (topic["topic"], part["partition"])
                error = self._partition_error(1, *tp)
                records = b""
                end = self.cluster.end_offset(*tp) if error == Errors.NONE else -1
                if error == Errors.NONE:
                    if not 0 <= part["fetch_offset"] <= end:
                        error = Errors.OFFSET_OUT_OF_RANGE
                    else:
                        records = b"".join(
                            b for b in self.cluster.logs[tp] if decode_batch(b)[0].last_offset >= part["fetch_offset"]
                        )
                parts.append({"partition_index": tp[1], "error_code": error, "high_watermark": end, "records": records})
            responses.append({"topic": topic["topic"], "partitions": parts})
        return {"responses": responses}

    def _api_2(self, version, body):  # ListOffsets
        topics = []
        for topic in body["topics"]:
            parts = []
            for part in topic["partitions"]:
                tp = (topic["name"], part["partition_index"])
                error = self._partition_error(2, *tp)
                offset = -1
                if error == Errors.NONE:
                    offset = 0 if part["timestamp"] == -2 else self.cluster.end_offset(*tp)
                parts.append(
                    {"partition_index": tp[1], "error_code": error, "offset": offset, "old_style_offsets": [offset]}
                )
            topics.append({"name": topic["name"], "partitions": parts})
        return {"topics": topics}

    def _api_22(self, version, body):  # InitProducerId
        return {"error_code": 0, "producer_id": 7, "producer_epoch": 0}

    def _api_19(self, version, body):  # CreateTopics
        results = []
        for topic in body["topics"]:
            if self.node_id != self.cluster.controller_id:
                error, message = Errors.NOT_CONTROLLER, None
            elif topic["name"] in self.cluster.topics:
                error, message = Errors.TOPIC_ALREADY_EXISTS, "Topic '%s' already exists." % topic["name"]
            else:
                count = topic["num_partitions"] if topic["num_partitions"] > 0 else len(topic["assignments"])
                self.cluster.create_topic(topic["name"], max(count, 1))
                error, message = Errors.NONE, None
            results.append({"name": topic["name"], "error_code": error, "error_message": message})
        return {"topics": results}

    def _api_32(self, version, body):  # DescribeConfigs: one override and one default per topic
        return {
            "results": [
                {
                    "error_code": 0,
                    "error_message": None,
                    "resource_type": r["resource_type"],
                    "resource_name": r["resource_name"],
                    "configs": [
                        {
                            "name": "retention.ms",
                            "value": "1000",
                            "read_only": False,
                            "config_source": 1,
                            "is_default": False,
                            "is_sensitive": False,
                        },
                        {
                            "name": "min.insync.replicas",
                            "value": "2",
                            "read_only": False,
                            "config_source": 5,
                            "is_default": True,
                            "is_sensitive": False,
                        },
                    ],
                }
                for r in body["resources"]
            ]
        }

    def _api_20(self, version, body):  # DeleteTopics
        results = []
        for name in body["topic_names"]:
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION if self.cluster.topics.pop(name, None) is None else Errors.NONE
            results.append({"name": name, "error_code": error})
        return {"responses": results}


@pytest.fixture
def fake():
    """Two in-process brokers with topic t: partition 0 led by broker 0, partition 1 by broker 1."""
    cluster = FakeCluster(broker_count=2)
    cluster.create_topic("t", 2, leader=[0, 1])
    yield cluster
    cluster.stop()
