"""Producer: a synchronous batching producer (default partitioner, compression, retries, idempotence)."""

import time
from collections import namedtuple

from kafka_zk.client.cluster import METADATA_REFRESH_ERRORS, ClusterClient
from kafka_zk.client.errors import KafkaClientError, KafkaConnectionError, KafkaResponseError, raise_for_error
from kafka_zk.client.partitioner import StickyPartitioner
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import init_producer_id, produce
from kafka_zk.record.batch_header import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE
from kafka_zk.record.compression import NONE, codec_from_name
from kafka_zk.record.records import encode_batch

RecordMetadata = namedtuple("RecordMetadata", "topic partition offset timestamp")
RecordMetadata.__doc__ = "Where a record landed; offset is -1 when acks=0 (the broker does not say)."

# Bytes a record adds to a batch besides key, value and headers (length, attributes, deltas: a bound).
_RECORD_OVERHEAD = 21
_BATCH_OVERHEAD = 61
_COORDINATOR_RETRY_ERRORS = frozenset(
    {
        Errors.COORDINATOR_NOT_AVAILABLE,
        Errors.NOT_COORDINATOR,
        Errors.COORDINATOR_LOAD_IN_PROGRESS,
        Errors.CONCURRENT_TRANSACTIONS,
    }
)


def parse_acks(acks):
    """acks as an int: 0, 1 or -1 ("all" and "-1" mean -1)."""
    if acks in ("all", "-1", -1):
        return -1
    value = int(acks)
    if value not in (0, 1):
        raise ValueError("Invalid value %s for configuration acks: String must be one of: all, -1, 0, 1" % acks)
    return value


class ProduceFuture:
    """The eventual RecordMetadata of one send; ``get()`` flushes the producer if still pending."""

    def __init__(self, producer, topic, partition, key, value):
        self._producer = producer
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self._metadata = None
        self.exception = None

    @property
    def done(self):
        return self._metadata is not None or self.exception is not None

    def get(self):
        if not self.done:
            self._producer.flush(raise_errors=False)
        if self.exception is not None:
            raise self.exception
        return self._metadata

    def _complete(self, metadata):
        self._metadata = metadata

    def _fail(self, exception):
        self.exception = exception


class _Batch:
    def __init__(self, topic, partition, created):
        self.topic = topic
        self.partition = partition
        self.created = created
        self.records = []
        self.futures = []
        self.size = _BATCH_OVERHEAD
        self.full = False
        self.attempts = 0
        self.encoded = None
        self.base_sequence = NO_SEQUENCE

    def append(self, record, future, size):
        self.records.append(record)
        self.futures.append(future)
        self.size += size

    def fail(self, exception):
        for future in self.futures:
            future._fail(exception)

    def complete(self, base_offset, log_append_time):
        for i, (future, record) in enumerate(zip(self.futures, self.records)):
            offset = base_offset + i if base_offset >= 0 else -1
            timestamp = log_append_time if log_append_time >= 0 else record[3]
            future._complete(RecordMetadata(self.topic, self.partition, offset, timestamp))


class Producer:
    """Send records to a cluster; blocking, single-threaded.

    Records accumulate in per-partition batches; a batch goes out when it reaches ``batch_size`` bytes,
    when its oldest record is ``linger_ms`` old at the next send (0: at once), or on flush/close.
    Errors surface on the record's future, and flush() raises the first one unless told not to.
    """

    def __init__(
        self,
        bootstrap_servers,
        acks=1,
        compression="none",
        linger_ms=0,
        batch_size=16384,
        enable_idempotence=False,
        client_id="kafka-zk-producer",
        request_timeout_ms=30000,
        retries=5,
        retry_backoff_ms=100,
        clock=time.time,
        sleep=time.sleep,
        cluster=None,
        partitioner=None,
        security=None,
    ):
        self.acks = parse_acks(acks)
        if enable_idempotence and self.acks != -1:
            raise ValueError("Must set acks to all in order to use the idempotent producer.")
        self.codec = codec_from_name(compression) or NONE
        self.linger_ms = linger_ms
        self.batch_size = batch_size
        self.enable_idempotence = enable_idempotence
        self.request_timeout_ms = request_timeout_ms
        self.retries = retries
        self.retry_backoff_ms = retry_backoff_ms
        self._clock = clock
        self._sleep = sleep
        self.cluster = cluster or ClusterClient(
            bootstrap_servers, client_id=client_id, retry_backoff_ms=retry_backoff_ms, sleep=sleep, security=security
        )
        self._partitioner = partitioner or StickyPartitioner()
        self._batches = {}
        self.producer_id = NO_PRODUCER_ID
        self.producer_epoch = NO_PRODUCER_EPOCH
        self._next_sequence = {}
        self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _now_ms(self):
        return int(self._clock() * 1000)

    # -- accumulating ------------------------------------------------------------------------

    def send(self, topic, value, key=None, headers=None, partition=None, timestamp_ms=None):
        """Queue one record; returns a ProduceFuture. Sends whatever batches are due."""
        if self._closed:
            raise KafkaClientError("Cannot send after the producer is closed.")
        key = _as_bytes(key)
        value = _as_bytes(value)
        headers = [(k, _as_bytes(v)) for k, v in (headers or [])]
        size = (
            _RECORD_OVERHEAD + len(key or b"") + len(value or b"") + sum(len(k) + len(v or b"") + 2 for k, v in headers)
        )
        if partition is None:
            partition = self._choose_partition(topic, key, size)
        timestamp = self._now_ms() if timestamp_ms is None else timestamp_ms
        future = ProduceFuture(self, topic, partition, key, value)
        queue = self._batches.setdefault((topic, partition), [])
        if self._needs_new_batch(queue, size):
            if queue:
                queue[-1].full = True
            queue.append(_Batch(topic, partition, self._now_ms()))
        batch = queue[-1]
        batch.append((key, value, headers, timestamp), future, size)
        if batch.size >= self.batch_size:
            batch.full = True
        self._send_due()
        return future

    def _needs_new_batch(self, queue, size):
        return not queue or queue[-1].full or queue[-1].size + size > self.batch_size

    def _choose_partition(self, topic, key, size):
        """The default partitioner; a null-key record that would start a new batch moves the sticky partition
        first, as Kafka's producer does."""
        partitions = self.cluster.partitions_for(topic, allow_auto_create=True)
        available = self.cluster.available_partitions(topic)
        partition = self._partitioner.partition(topic, key, partitions, available)
        if key is None:
            if self._needs_new_batch(self._batches.get((topic, partition)), size):
                self._partitioner.on_new_batch(topic, partitions, available, partition)
                partition = self._partitioner.partition(topic, key, partitions, available)
        return partition

    def _send_due(self):
        now = self._now_ms()
        if any(
            queue and (queue[0].full or now - queue[0].created >= self.linger_ms) for queue in self._batches.values()
        ):
            self._drain(force=False)

    def flush(self, raise_errors=True):
        """Send every queued record; raise the first failure (KafkaClientError) if ``raise_errors``."""
        return self._drain(force=True, raise_errors=raise_errors)

    def close(self):
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self.cluster.close()

    # -- sending -------------------------------------------------------------------------------

    def _ensure_producer_id(self):
        if not self.enable_idempotence or self.producer_id != NO_PRODUCER_ID:
            return

        def attempt():
            _, response = self.cluster.any_request(
                init_producer_id.API_KEY, lambda v: {"transactional_id": None, "transaction_timeout_ms": 60000}
            )
            raise_for_error(response["error_code"], context="InitProducerId")
            return response["producer_id"], response["producer_epoch"]

        self.producer_id, self.producer_epoch = self.cluster.with_retries(
            attempt, [], retriable=METADATA_REFRESH_ERRORS | _COORDINATOR_RETRY_ERRORS
        )

    def _encode(self, batch):
        if batch.encoded is None:
            if self.enable_idempotence:
                tp = (batch.topic, batch.partition)
                batch.base_sequence = self._next_sequence.get(tp, 0)
                self._next_sequence[tp] = (batch.base_sequence + len(batch.records)) & 0x7FFFFFFF
            batch.encoded = encode_batch(
                batch.records,
                compression=self.codec,
                producer_id=self.producer_id,
                producer_epoch=self.producer_epoch,
                base_sequence=batch.base_sequence,
            )
        return batch.encoded

    def _drain(self, force, raise_errors=True):
        """Send due batches (all when ``force``) until none is left to retry; returns the failures."""
        if not self._batches:
            return []
        self._ensure_producer_id()
        failures = []
        round_no = 0
        while True:
            now = self._now_ms()
            ready = [
                queue[0]
                for queue in self._batches.values()
                if queue and (force or queue[0].full or now - queue[0].created >= self.linger_ms)
            ]
            if not ready:
                break
            if round_no > 0:
                self._sleep(min(self.retry_backoff_ms * 2 ** (round_no - 1), 1000) / 1000.0)
                self._refresh([b.topic for b in ready])
            round_no += 1
            by_node = {}
            for batch in ready:
                try:
                    node = self.cluster.leader_for(batch.topic, batch.partition)
                except KafkaClientError as exc:
                    self._finish(batch, exc, failures)
                    continue
                by_node.setdefault(node, []).append(batch)
            for node, batches in by_node.items():
                self._send_to(node, batches, failures)
        if failures and raise_errors:
            raise failures[0]
        return failures

    def _refresh(self, topics):
        try:
            self.cluster.metadata(sorted(set(topics)))
        except KafkaConnectionError:
            pass

    def _finish(self, batch, exception, failures):
        """Complete ``batch`` with ``exception`` (or success when None) and dequeue it."""
        queue = self._batches[(batch.topic, batch.partition)]
        queue.pop(0)
        if not queue:
            del self._batches[(batch.topic, batch.partition)]
        if exception is not None:
            batch.fail(exception)
            failures.append(exception)

    def _retry_or_fail(self, batch, exception, failures):
        batch.attempts += 1
        if batch.attempts > self.retries:
            self._finish(batch, exception, failures)

    def _send_to(self, node, batches, failures):
        topics = {}
        for batch in batches:
            topics.setdefault(batch.topic, []).append(
                {"partition_index": batch.partition, "records": self._encode(batch)}
            )
        body = {
            "transactional_id": None,
            "acks": self.acks,
            "timeout_ms": self.request_timeout_ms,
            "topics": [{"name": name, "partitions": parts} for name, parts in topics.items()],
        }
        try:
            conn = self.cluster.connection(node)
            if self.acks == 0:
                conn.send_no_response(produce.API_KEY, body)
                for batch in batches:
                    batch.complete(-1, -1)
                    self._finish(batch, None, failures)
                return
            response = conn.request(produce.API_KEY, body, timeout=self.request_timeout_ms / 1000.0 + 5)
        except KafkaConnectionError as exc:
            for batch in batches:
                self._retry_or_fail(batch, exc, failures)
            return
        results = {
            (topic["name"], p["partition_index"]): p for topic in response["responses"] for p in topic["partitions"]
        }
        for batch in batches:
            result = results.get((batch.topic, batch.partition))
            if result is None:
                self._retry_or_fail(
                    batch,
                    KafkaResponseError(
                        Errors.NETWORK_EXCEPTION, "no result for partition", "%s-%d" % (batch.topic, batch.partition)
                    ),
                    failures,
                )
                continue
            error = Errors.from_code(result["error_code"])
            if error == Errors.NONE:
                batch.complete(result["base_offset"], result.get("log_append_time_ms", -1))
                self._finish(batch, None, failures)
            elif error == Errors.DUPLICATE_SEQUENCE_NUMBER:
                batch.complete(-1, -1)
                self._finish(batch, None, failures)
            else:
                exception = KafkaResponseError(
                    error, result.get("error_message"), "%s-%d" % (batch.topic, batch.partition)
                )
                if error in METADATA_REFRESH_ERRORS:
                    self.cluster.invalidate(batch.topic)
                    self._retry_or_fail(batch, exception, failures)
                else:
                    self._finish(batch, exception, failures)


def _as_bytes(value):
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return bytes(value)
