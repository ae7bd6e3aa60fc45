"""Consumer: reads assigned partitions with Fetch, no consumer group; positions via seek and ListOffsets.

With isolation_level "read_committed" it reads up to the last stable offset and drops the batches of
aborted transactions the broker lists, as Kafka's consumer does.
"""

import time
from collections import namedtuple

from kafka_zk.client.cluster import METADATA_REFRESH_ERRORS, ClusterClient
from kafka_zk.client.errors import KafkaClientError, KafkaConnectionError, KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import fetch, list_offsets
from kafka_zk.record.batch_header import iter_batch_headers
from kafka_zk.record.records import CONTROL_ABORT, batch_records_data, decode_records, parse_control_key

ConsumerRecord = namedtuple("ConsumerRecord", "topic partition offset timestamp timestamp_type key value headers")
ConsumerRecord.__doc__ = (
    "One fetched record; timestamp_type is 'CreateTime' or 'LogAppendTime'; headers is a list of (str, bytes or None)."
)

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
READ_UNCOMMITTED = 0
READ_COMMITTED = 1
ISOLATION_LEVELS = {"read_committed": READ_COMMITTED, "read_uncommitted": READ_UNCOMMITTED}
_CONSUMER_REPLICA_ID = -1
RESET_POLICIES = ("earliest", "latest", "none")


class NoOffsetForPartitionError(KafkaClientError):
    """A partition needs a position but the reset policy is "none"."""


class Consumer:
    """Fetches from explicitly assigned (topic, partition)s.

    A partition without a position (fresh assignment, or out of range) is reset by
    ``auto_offset_reset``: "earliest", "latest", or "none" (raise). ``clock`` is a monotonic
    seconds function, injectable for tests.
    """

    def __init__(
        self,
        bootstrap_servers,
        client_id="kafka-zk-consumer",
        auto_offset_reset="latest",
        max_wait_ms=500,
        min_bytes=1,
        max_bytes=50 * 1024 * 1024,
        max_partition_fetch_bytes=1024 * 1024,
        request_timeout_ms=30000,
        retry_backoff_ms=100,
        clock=time.monotonic,
        sleep=time.sleep,
        cluster=None,
        isolation_level="read_uncommitted",
        security=None,
    ):
        if isolation_level not in ISOLATION_LEVELS:
            raise ValueError(
                "Invalid value %s for configuration isolation.level: String must be one of: "
                "read_committed, read_uncommitted" % isolation_level
            )
        self.isolation_level = ISOLATION_LEVELS[isolation_level]
        if auto_offset_reset not in RESET_POLICIES:
            raise ValueError(
                "Invalid value %s for configuration auto.offset.reset: String must be one of: %s"
                % (auto_offset_reset, ", ".join(RESET_POLICIES))
            )
        self.auto_offset_reset = auto_offset_reset
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.max_partition_fetch_bytes = max_partition_fetch_bytes
        self.request_timeout_ms = request_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self._clock = clock
        self._sleep = sleep
        self.cluster = cluster or ClusterClient(
            bootstrap_servers, client_id=client_id, retry_backoff_ms=retry_backoff_ms, sleep=sleep, security=security
        )
        # (topic, partition) -> next offset, or a pending reset timestamp (EARLIEST/LATEST) as ("reset", ts).
        self._positions = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        self.cluster.close()

    # -- assignment and positions ------------------------------------------------------------

    def assign(self, partitions):
        """Replace the assignment; positions of partitions kept from before are kept."""
        partitions = [(t, int(p)) for t, p in partitions]
        self._positions = {tp: self._positions.get(tp) for tp in partitions}

    def assignment(self):
        return list(self._positions)

    def _check_assigned(self, tp):
        if tp not in self._positions:
            raise KafkaClientError("No current assignment for partition %s-%d" % tp)

    def seek(self, tp, offset):
        self._check_assigned(tp)
        if offset < 0:
            raise ValueError("seek offset must not be negative")
        self._positions[tp] = offset

    def seek_to_beginning(self, partitions=None):
        for tp in self._selected(partitions):
            self._positions[tp] = ("reset", EARLIEST_TIMESTAMP)

    def seek_to_end(self, partitions=None):
        for tp in self._selected(partitions):
            self._positions[tp] = ("reset", LATEST_TIMESTAMP)

    def _selected(self, partitions):
        selected = list(self._positions) if partitions is None else [(t, int(p)) for t, p in partitions]
        for tp in selected:
            self._check_assigned(tp)
        return selected

    def known_positions(self):
        """{(topic, partition): next offset} of the assigned partitions whose position is known (no reset pending)."""
        return {tp: pos for tp, pos in self._positions.items() if isinstance(pos, int)}

    def position(self, tp):
        """The offset of the next record poll would return for ``tp``."""
        self._check_assigned(tp)
        self._resolve_positions()
        return self._positions[tp]

    def beginning_offsets(self, partitions):
        return self.list_offsets({tp: EARLIEST_TIMESTAMP for tp in partitions})

    def end_offsets(self, partitions):
        return self.list_offsets({tp: LATEST_TIMESTAMP for tp in partitions})

    def list_offsets(self, timestamps):
        """{(topic, partition): offset} for {(topic, partition): timestamp} (-2 earliest, -1 latest)."""
        pending = dict(timestamps)
        result = {}

        def attempt():
            by_node = {}
            for tp in pending:
                by_node.setdefault(self.cluster.leader_for(*tp), []).append(tp)
            for node, tps in by_node.items():
                result.update(self._list_offsets_from(node, {tp: pending[tp] for tp in tps}))
                for tp in tps:
                    pending.pop(tp)
            return result

        return self.cluster.with_retries(attempt, sorted({t for t, _ in timestamps}))

    def _list_offsets_from(self, node, timestamps):
        topics = {}
        for (topic, partition), timestamp in timestamps.items():
            topics.setdefault(topic, []).append(
                {"partition_index": partition, "timestamp": timestamp, "max_num_offsets": 1}
            )
        body = {
            "replica_id": _CONSUMER_REPLICA_ID,
            "isolation_level": self.isolation_level,
            "topics": [{"name": t, "partitions": parts} for t, parts in topics.items()],
        }
        conn = self.cluster.connection(node)
        version = conn.api_version(list_offsets.API_KEY)
        response = conn.request(list_offsets.API_KEY, body, version)
        offsets = {}
        for topic in response["topics"]:
            for part in topic["partitions"]:
                tp = (topic["name"], part["partition_index"])
                if part["error_code"]:
                    self.cluster.invalidate(tp[0])
                    raise KafkaResponseError(part["error_code"], context="ListOffsets %s-%d" % tp)
                if version == 0:
                    offsets[tp] = part["old_style_offsets"][0] if part["old_style_offsets"] else -1
                else:
                    offsets[tp] = part["offset"]
        return offsets

    def _resolve_positions(self):
        needed = {}
        for tp, position in self._positions.items():
            if isinstance(position, int):
                continue
            if position is None:
                if self.auto_offset_reset == "none":
                    raise NoOffsetForPartitionError("Undefined offset with no reset policy for partition: %s-%d" % tp)
                position = ("reset", EARLIEST_TIMESTAMP if self.auto_offset_reset == "earliest" else LATEST_TIMESTAMP)
            needed[tp] = position[1]
        if needed:
            self._positions.update(self.list_offsets(needed))

    # -- fetching ----------------------------------------------------------------------------

    def poll(self, timeout_ms=0):
        """Records fetched from the assigned partitions, waiting up to ``timeout_ms`` for some to arrive."""
        deadline = self._clock() + timeout_ms / 1000.0
        while True:
            self._resolve_positions()
            by_node, complete = self._partitions_by_leader()
            if not complete:
                self._refresh_metadata()
                by_node, complete = self._partitions_by_leader()
            remaining_ms = max(0, int((deadline - self._clock()) * 1000))
            wait_ms = min(self.max_wait_ms, remaining_ms) // max(1, len(by_node))
            records = []
            healthy = complete and bool(by_node)
            for node, tps in by_node.items():
                fetched, ok = self._fetch_from(node, tps, wait_ms)
                records.extend(fetched)
                healthy = healthy and ok
            if records or self._clock() >= deadline:
                return records
            if not healthy:
                self._sleep(min(self.retry_backoff_ms / 1000.0, max(0.0, deadline - self._clock())))

    def _partitions_by_leader(self):
        """({leader node: [tp]}, whether every assigned partition has a known leader) from cached metadata."""
        by_node = {}
        complete = True
        for topic, partition in self._positions:
            info = self.cluster.topics.get(topic)
            part = info.partitions.get(partition) if info else None
            if part is None or part.leader < 0:
                complete = False
                continue
            by_node.setdefault(part.leader, []).append((topic, partition))
        return by_node, complete

    def _fetch_from(self, node, tps, wait_ms):
        topics = {}
        for topic, partition in tps:
            topics.setdefault(topic, []).append(
                {
                    "partition": partition,
                    "fetch_offset": self._positions[(topic, partition)],
                    "partition_max_bytes": self.max_partition_fetch_bytes,
                }
            )
        body = {
            "replica_id": _CONSUMER_REPLICA_ID,
            "max_wait_ms": wait_ms,
            "min_bytes": self.min_bytes,
            "max_bytes": self.max_bytes,
            "isolation_level": self.isolation_level,
            "topics": [{"topic": t, "partitions": parts} for t, parts in topics.items()],
        }
        try:
            response = self.cluster.request(
                node, fetch.API_KEY, body, timeout=(self.request_timeout_ms + wait_ms) / 1000.0
            )
        except KafkaConnectionError:
            self._refresh_metadata()
            return [], False
        if response.get("error_code"):
            raise KafkaResponseError(response["error_code"], context="Fetch")
        records = []
        ok = True
        for topic in response["responses"]:
            for part in topic["partitions"]:
                tp = (topic["topic"], part["partition_index"])
                if tp not in self._positions or not isinstance(self._positions[tp], int):
                    continue
                error = Errors.from_code(part["error_code"])
                if error == Errors.NONE:
                    records.extend(self._parse_records(tp, part["records"], part.get("aborted_transactions")))
                elif error == Errors.OFFSET_OUT_OF_RANGE:
                    self._handle_out_of_range(tp)
                elif error in METADATA_REFRESH_ERRORS:
                    self.cluster.invalidate(tp[0])
                    ok = False
                else:
                    raise KafkaResponseError(error, context="Fetch %s-%d" % tp)
        return records, ok

    def _refresh_metadata(self):
        try:
            self.cluster.metadata(sorted({t for t, _ in self._positions}))
        except KafkaConnectionError:
            pass

    def _handle_out_of_range(self, tp):
        if self.auto_offset_reset == "none":
            raise KafkaResponseError(
                Errors.OFFSET_OUT_OF_RANGE,
                "Offsets out of range with no configured reset policy for partition %s-%d: %d"
                % (tp[0], tp[1], self._positions[tp]),
            )
        self._positions[tp] = None

    def _parse_records(self, tp, data, aborted_transactions=None):
        if not data:
            return []
        position = self._positions[tp]
        records = []
        pending = sorted(
            ((a["producer_id"], a["first_offset"]) for a in aborted_transactions or []), key=lambda entry: entry[1]
        )
        aborted_producers = set()
        committed_only = self.isolation_level == READ_COMMITTED
        for pos, header in iter_batch_headers(data):
            skip = False
            if committed_only:
                while pending and pending[0][1] <= header.last_offset:
                    aborted_producers.add(pending.pop(0)[0])
                if header.is_control:
                    if header.producer_id in aborted_producers and _is_abort_marker(data, pos, header):
                        aborted_producers.discard(header.producer_id)
                elif header.is_transactional and header.producer_id in aborted_producers:
                    skip = True
            if header.next_offset <= position:
                continue
            if not header.is_control and not skip:
                timestamp_type = "LogAppendTime" if header.is_log_append_time else "CreateTime"
                for record in decode_records(header, batch_records_data(data, pos, header)):
                    if record.offset >= position:
                        records.append(
                            ConsumerRecord(
                                tp[0],
                                tp[1],
                                record.offset,
                                record.timestamp,
                                timestamp_type,
                                record.key,
                                record.value,
                                list(record.headers),
                            )
                        )
            position = header.next_offset
        self._positions[tp] = position
        return records


def _is_abort_marker(data, pos, header):
    records = decode_records(header, batch_records_data(data, pos, header))
    return bool(records) and parse_control_key(records[0].key)[1] == CONTROL_ABORT
