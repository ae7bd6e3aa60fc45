"""Raw-socket Kafka requests for real-broker tests: frames built with our codec, no client library."""

import itertools
import socket
import struct

from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.record.records import iter_records
from tests.cluster_support import wait_for

_SIZE = struct.Struct(">i")
NOT_CONTROLLER = 41
_correlation_ids = itertools.count(1)


def host_port(bootstrap):
    host, port = bootstrap.rsplit(":", 1)
    return host, int(port)


class RawConnection:
    """One blocking TCP connection to a broker; frames go out as given and come back whole."""

    def __init__(self, bootstrap, timeout=10.0):
        self.sock = socket.create_connection(host_port(bootstrap), timeout=timeout)

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send_raw(self, data):
        self.sock.sendall(data)

    def send_frame(self, payload):
        self.sock.sendall(_SIZE.pack(len(payload)) + payload)

    def _read_exact(self, size):
        """size bytes, or None when the broker closes (or resets) the connection first."""
        chunks = bytearray()
        while len(chunks) < size:
            try:
                chunk = self.sock.recv(size - len(chunks))
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            chunks += chunk
        return bytes(chunks)

    def recv_frame(self):
        """The next response frame's payload, or None if the connection was closed."""
        head = self._read_exact(4)
        if head is None:
            return None
        return self._read_exact(_SIZE.unpack(head)[0])

    def is_closed_by_peer(self):
        """True when the broker closes the connection without sending any further bytes."""
        try:
            data = self.sock.recv(1)
        except ConnectionResetError:
            return True
        return data == b""

    def request(self, api_key, version, body, client_id="raw-test"):
        correlation_id = next(_correlation_ids)
        self.send_frame(encode_request(api_key, version, correlation_id, client_id, body))
        frame = self.recv_frame()
        if frame is None:
            raise ConnectionError("broker closed the connection on api %d v%d" % (api_key, version))
        got, response = decode_response(api_key, version, frame)
        assert got == correlation_id
        return response


def request(bootstrap, api_key, version, body):
    with RawConnection(bootstrap) as conn:
        return conn.request(api_key, version, body)


def api_versions_ok(bootstrap):
    """A fresh connection's ApiVersions v3 answers with error 0 and a non-empty key list."""
    response = request(bootstrap, 18, 3, {"client_software_name": "raw-test", "client_software_version": "1"})
    return response["error_code"] == 0 and len(response["api_keys"]) > 0


def metadata(bootstrap, topics=None, allow_auto_create=False):
    body = {
        "topics": None if topics is None else [{"name": name} for name in topics],
        "allow_auto_topic_creation": allow_auto_create,
    }
    return request(bootstrap, 3, 5, body)


def partition_leaders(bootstrap, topic):
    """{partition: leader} of a topic per this broker's metadata; {} if any partition has no leader."""
    response = metadata(bootstrap, [topic])
    leaders = {}
    for entry in response["topics"]:
        if entry["error_code"] != 0:
            return {}
        for partition in entry["partitions"]:
            if partition["leader_id"] < 0:
                return {}
            leaders[partition["partition_index"]] = partition["leader_id"]
    return leaders


def controller_bootstrap(bootstrap, timeout=30.0):
    """host:port of the controller, as the broker at ``bootstrap`` knows it (once it knows one)."""

    def known():
        response = metadata(bootstrap, [])
        return next(
            (
                "%s:%d" % (broker["host"], broker["port"])
                for broker in response["brokers"]
                if broker["node_id"] == response["controller_id"]
            ),
            None,
        )

    return wait_for(known, timeout, message="a controller known to %s" % bootstrap)


def create_topic(bootstrap, name, assignments=None, partitions=1, replication_factor=1, configs=None):
    """CreateTopics v3, sent to the controller (only it creates topics: any other broker answers NOT_CONTROLLER),
    found through ``bootstrap``; assignments {partition: [broker ids]} pin replicas. Returns the error code."""
    topic = {
        "name": name,
        "num_partitions": -1 if assignments else partitions,
        "replication_factor": -1 if assignments else replication_factor,
        "assignments": [{"partition_index": p, "broker_ids": list(b)} for p, b in (assignments or {}).items()],
        "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()],
    }
    body = {"topics": [topic], "timeout_ms": 30000, "validate_only": False}
    error = wait_for(
        lambda: (lambda code: None if code == NOT_CONTROLLER else (code,))(
            request(controller_bootstrap(bootstrap), 19, 3, body)["topics"][0]["error_code"]
        ),
        30.0,
        message="the controller to create %s" % name,
    )
    return error[0]


def create_led_topic(bootstrap, name, assignments=None, partitions=1, replication_factor=1, configs=None, timeout=30.0):
    """create_topic, which must succeed, then the topic's {partition: leader} once this broker's metadata has a
    leader for each of its partitions."""
    assert create_topic(bootstrap, name, assignments, partitions, replication_factor, configs) == 0, name
    count = len(assignments) if assignments else partitions
    return wait_for(
        lambda: (lambda leaders: len(leaders) == count and leaders)(partition_leaders(bootstrap, name)),
        timeout,
        message="the leaders of %s" % name,
    )


def produce_body(topic, partition, records, acks=1, timeout_ms=10000, transactional_id=None):
    """A Produce request's body: ``records`` (a batch's bytes) for one partition of one topic."""
    return {
        "transactional_id": transactional_id,
        "acks": acks,
        "timeout_ms": timeout_ms,
        "topics": [{"name": topic, "partitions": [{"partition_index": partition, "records": records}]}],
    }


def produce(bootstrap, topic, partition, records, acks=1):
    """(error_code, base_offset) of a Produce v7 of one partition's batch bytes."""
    response = request(bootstrap, 0, 7, produce_body(topic, partition, records, acks))
    result = response["responses"][0]["partitions"][0]
    return result["error_code"], result["base_offset"]


def _list_latest(bootstrap, topic, partition):
    response = request(
        bootstrap,
        2,
        5,
        {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [{"name": topic, "partitions": [{"partition_index": partition, "timestamp": -1}]}],
        },
    )
    return response["topics"][0]["partitions"][0]


def list_offsets_error(bootstrap, topic, partition):
    return _list_latest(bootstrap, topic, partition)["error_code"]


def latest_offset(bootstrap, topic, partition):
    result = _list_latest(bootstrap, topic, partition)
    assert result["error_code"] == 0, result
    return result["offset"]


def fetch_records(bootstrap, topic, partition, offset=0, max_bytes=8 * 1024 * 1024, version=11, rack_id=""):
    """(error_code, high_watermark, [Record]) of one Fetch (v11 unless told) from offset. From v11 any replica
    serves it (KIP-392); before, only the leader."""
    response = request(
        bootstrap,
        1,
        version,
        {
            "replica_id": -1,
            "max_wait_ms": 0,
            "min_bytes": 0,
            "max_bytes": max_bytes,
            "isolation_level": 0,
            "session_id": 0,
            "session_epoch": -1,
            "rack_id": rack_id,
            "topics": [
                {
                    "topic": topic,
                    "partitions": [{"partition": partition, "fetch_offset": offset, "partition_max_bytes": max_bytes}],
                }
            ],
        },
    )
    result = response["responses"][0]["partitions"][0]
    records = [r for r in iter_records(bytes(result["records"] or b"")) if r.offset >= offset]
    return result["error_code"], result["high_watermark"], records


def read_all(bootstrap, topic, partition):
    """Every record from offset 0 up to the high watermark, following fetches until caught up."""
    records = []
    offset = 0
    while True:
        error, high_watermark, batch = fetch_records(bootstrap, topic, partition, offset)
        assert error == 0, "fetch error %d" % error
        records += batch
        if batch:
            offset = batch[-1].offset + 1
        if offset >= high_watermark:
            return records
        if not batch:
            raise AssertionError("no progress reading %s-%d at %d (hw %d)" % (topic, partition, offset, high_watermark))
