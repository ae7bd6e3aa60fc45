"""The delivery checker fault drills share: an idempotent acks=all producer and an exactly-once, in-order read-back."""

import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

DEFAULT_RATE = 200
POLL_INTERVAL_S = 0.05
EXAMPLES = 5


@dataclass(frozen=True)
class AckedRecord:
    """A record the cluster acknowledged: where it says it stored it, and when the ack arrived (monotonic). The offset
    is None for a record librdkafka acknowledged implicitly: a timed-out batch followed by a later batch's success
    ("implicitly acked by subsequent batch success") is persisted, at an offset it never learnt."""

    partition: int
    offset: int | None
    value: bytes
    acked_at: float


@dataclass(frozen=True)
class ReadRecord:
    """A record read back from the topic."""

    partition: int
    offset: int
    value: bytes


@dataclass(frozen=True)
class FailedRecord:
    """A record the producer gave up on: not acknowledged, so it may appear at most once."""

    value: bytes
    error: str


def record_value(partition, sequence):
    """The unique value of the sequence-th record produced to a partition."""
    return b"%d:%d" % (partition, sequence)


def parse_value(value):
    """(partition, sequence) a value was produced with, or None for a value this checker did not write."""
    try:
        partition, sequence = value.split(b":")
        return int(partition), int(sequence)
    except (AttributeError, ValueError):
        return None


@dataclass
class DeliveryReport:
    """What a read-back found against what was acknowledged; the lists hold the evidence, the counts summarise."""

    name: str
    acked: int
    read_back: int
    failed: list = field(default_factory=list)  # FailedRecord
    lost: list = field(default_factory=list)  # AckedRecord never read back
    duplicated: list = field(default_factory=list)  # (value, [(partition, offset), ...]) read more than once
    out_of_order: list = field(default_factory=list)  # (partition, offset, value, a higher value read before it)
    misplaced: list = field(default_factory=list)  # (value, acked (partition, offset), read (partition, offset))
    foreign: list = field(default_factory=list)  # ReadRecord this checker did not produce
    longest_gap_s: float = 0.0  # the longest time between consecutive acks
    longest_gap_began_s: float = 0.0  # when it began, in seconds after the first ack
    window_gap_s: float | None = None  # the longest stretch without an ack inside the window
    partition_gaps: dict = field(default_factory=dict)  # {partition: the longest time between its own acks}
    fatal_errors: list = field(default_factory=list)  # the producer's fatal client errors (strings)

    def line(self):
        text = "%s: acked %d lost %d dup %d out-of-order %d failed %d longest gap %.1f s" % (
            self.name,
            self.acked,
            len(self.lost),
            len(self.duplicated),
            len(self.out_of_order),
            len(self.failed),
            self.longest_gap_s,
        )
        if self.window_gap_s is not None:
            text += " (%.1f s in window)" % self.window_gap_s
        if self.partition_gaps:
            partition, gap = max(self.partition_gaps.items(), key=lambda item: item[1])
            text += " (partition %d: %.1f s)" % (partition, gap)
        text += " misplaced %d read %d" % (len(self.misplaced), self.read_back)
        if self.foreign:
            text += " foreign %d" % len(self.foreign)
        if self.fatal_errors:
            text += " fatal %d" % len(self.fatal_errors)
        return text

    def defects(self):
        """One line per kind of defect found, with a few examples; empty when the delivery is intact."""
        found = []
        for label, items in (
            ("lost (acked, never read)", self.lost),
            ("duplicated (read more than once)", self.duplicated),
            ("out of order (read after a later sequence)", self.out_of_order),
            ("misplaced (read at another offset than acked)", self.misplaced),
            ("fatal producer errors", self.fatal_errors),
        ):
            if items:
                found.append("%d %s, e.g. %s" % (len(items), label, items[:EXAMPLES]))
        return found

    def assert_intact(self):
        defects = self.defects()
        assert not defects, "%s\n  %s" % (self.line(), "\n  ".join(defects))


def longest_gap(times, window=None):
    """(seconds, start) of the longest stretch between consecutive times; with window (start, end) the stretch
    is clipped to the window and the window's edges count as its bounds."""
    points = sorted(times)
    if window is not None:
        start, end = window
        points = [start] + [t for t in points if start < t < end] + [end]
    best = (0.0, points[0] if points else 0.0)
    for before, after in zip(points, points[1:]):
        if after - before > best[0]:
            best = (after - before, before)
    return best


def compute_report(acked, read_back, failed=(), name="delivery", window=None, fatal_errors=()):
    """The DeliveryReport of acked records (AckedRecord) against every record read back (ReadRecord)."""
    read_sorted = sorted(read_back, key=lambda r: (r.partition, r.offset))
    places = defaultdict(list)
    for record in read_sorted:
        places[record.value].append((record.partition, record.offset))
    ours, foreign = [], []
    for record in read_sorted:
        (foreign if parse_value(record.value) is None else ours).append(record)

    out_of_order = []
    highest = {}
    for record in ours:
        if places[record.value][0] != (record.partition, record.offset):
            continue  # a later copy: counted as duplicated, not again as reordered
        sequence = parse_value(record.value)[1]
        previous = highest.get(record.partition)
        if previous is not None and sequence < previous[0]:
            out_of_order.append((record.partition, record.offset, record.value, previous[1]))
        else:
            highest[record.partition] = (sequence, record.value)

    lost, misplaced = [], []
    for record in acked:
        found = places.get(record.value)
        if not found:
            lost.append(record)
        elif record.offset is None:
            if found[0][0] != record.partition:
                misplaced.append((record.value, (record.partition, None), found[0]))
        elif found[0] != (record.partition, record.offset):
            misplaced.append((record.value, (record.partition, record.offset), found[0]))

    gap, began = longest_gap([r.acked_at for r in acked])
    ack_times = defaultdict(list)
    for record in acked:
        ack_times[record.partition].append(record.acked_at)
    first_ack = min((r.acked_at for r in acked), default=began)
    return DeliveryReport(
        name=name,
        acked=len(acked),
        read_back=len(read_sorted),
        failed=list(failed),
        lost=lost,
        duplicated=[(value, where) for value, where in places.items() if len(where) > 1],
        out_of_order=out_of_order,
        misplaced=misplaced,
        foreign=foreign,
        longest_gap_s=gap,
        longest_gap_began_s=began - first_ack,
        window_gap_s=None if window is None else longest_gap([r.acked_at for r in acked], window)[0],
        partition_gaps={partition: longest_gap(times)[0] for partition, times in sorted(ack_times.items())},
        fatal_errors=list(fatal_errors),
    )


class DeliveryChecker:
    """An idempotent acks=all producer writing unique, per-partition numbered values round-robin at a steady
    rate from a background thread, remembering every ack and failure, and the read-back that checks them.

    ``start()``, drive the fault (``wait_acked`` / ``wait_until`` for progress), ``stop()``, then ``verify()``."""

    def __init__(
        self,
        bootstrap,
        topic,
        partitions,
        rate=DEFAULT_RATE,
        name=None,
        producer_config=None,
        message_timeout_ms=180000,
        request_timeout_ms=10000,
    ):
        self.bootstrap = bootstrap
        self.topic = topic
        self.partitions = list(range(partitions)) if isinstance(partitions, int) else list(partitions)
        self.rate = rate
        self.name = name or topic
        self.config = {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "message.timeout.ms": message_timeout_ms,
            "request.timeout.ms": request_timeout_ms,
            "linger.ms": 5,
            "log.connection.close": False,
            "log_level": 3,
            "error_cb": self._client_error,
        }
        self.config.update(producer_config or {})
        self.acked = []
        self.acked_by_partition = dict.fromkeys(self.partitions, 0)
        self.failed = []
        self.client_errors = []  # (monotonic time, fatal, text)
        self.produced = 0
        self.started_at = None
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._thread = None
        self._thread_error = None
        self._outstanding = None
        self._flush_timeout = None

    # -- the producer ---------------------------------------------------------------------------------

    def start(self):
        self.started_at = time.monotonic()
        self._thread = threading.Thread(target=self._produce, name="delivery-checker-%s" % self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout=60.0):
        """Stop producing and flush: every record sent ends acked or failed; raises if some are still in flight."""
        self._flush_timeout = timeout
        self._stopping.set()
        self._thread.join(timeout + 10)
        if self._thread.is_alive():
            raise AssertionError("%s: the producer thread did not finish within %.0f s" % (self.name, timeout))
        if self._thread_error is not None:
            raise AssertionError("%s: the producer thread failed: %r" % (self.name, self._thread_error))
        if self._outstanding:
            raise AssertionError(
                "%s: %d records neither acked nor failed %.0f s after stop (acked %d, failed %d)"
                % (self.name, self._outstanding, timeout, len(self.acked), len(self.failed))
            )

    def _produce(self):
        try:
            producer = Producer(self.config)
            sequences = dict.fromkeys(self.partitions, 0)
            while not self._stopping.is_set():
                due = self.started_at + self.produced / self.rate
                wait = due - time.monotonic()
                if wait > 0:
                    producer.poll(min(wait, POLL_INTERVAL_S))
                    continue
                partition = self.partitions[self.produced % len(self.partitions)]
                try:
                    producer.produce(
                        self.topic,
                        value=record_value(partition, sequences[partition]),
                        partition=partition,
                        on_delivery=self._delivered,
                    )
                except BufferError:  # the local queue is full: serve callbacks, send this record again later
                    producer.poll(POLL_INTERVAL_S)
                    continue
                sequences[partition] += 1
                self.produced += 1
                producer.poll(0)
            self._outstanding = producer.flush(self._flush_timeout)
        except BaseException as error:  # reported by stop()
            self._thread_error = error

    def _delivered(self, error, message):
        now = time.monotonic()
        with self._changed:
            if error is None:
                self.acked.append(AckedRecord(message.partition(), message.offset(), message.value(), now))
                self.acked_by_partition[message.partition()] += 1
            else:
                self.failed.append(FailedRecord(message.value(), str(error)))
            self._changed.notify_all()

    def _client_error(self, error):
        self.client_errors.append((time.monotonic(), error.fatal(), str(error)))

    # -- progress -------------------------------------------------------------------------------------

    def wait_until(self, condition, timeout, message="condition"):
        """Wait until condition(self) holds (checked on every ack or failure); raises after timeout seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        "%s: timed out after %.0f s waiting for %s (acked %d, failed %d)"
                        % (self.name, timeout, message, len(self.acked), len(self.failed))
                    )
                self._changed.wait(min(remaining, POLL_INTERVAL_S * 4))

    def wait_acked(self, count_more, timeout, partition=None):
        """Wait for count_more acks beyond those already received (of one partition's records, if given)."""

        def acked(checker):
            return len(checker.acked) if partition is None else checker.acked_by_partition[partition]

        target = acked(self) + count_more
        self.wait_until(
            lambda checker: acked(checker) >= target,
            timeout,
            "%d more acks%s" % (count_more, "" if partition is None else " on partition %d" % partition),
        )

    def acked_since(self, moment):
        """How many acks arrived after a monotonic moment."""
        with self._changed:
            return sum(1 for record in self.acked if record.acked_at > moment)

    # -- the read-back --------------------------------------------------------------------------------

    def verify(self, timeout=60.0, window=None):
        """Read every partition from the beginning to its high watermark (once it covers the last acked offset)
        and return the DeliveryReport; ``window`` (start, end) monotonic: also the longest gap inside it."""
        assert self._stopping.is_set() and not self._thread.is_alive(), "stop() the checker before verify()"
        read_back = read_partitions(self.bootstrap, self.topic, self.partitions, self._last_acked_offsets(), timeout)
        return compute_report(
            self.acked,
            read_back,
            self.failed,
            self.name,
            window,
            [text for _, fatal, text in self.client_errors if fatal],
        )

    def _last_acked_offsets(self):
        last = {}
        for record in self.acked:
            if record.offset is not None:
                last[record.partition] = max(last.get(record.partition, -1), record.offset)
        return last


def read_partitions(bootstrap, topic, partitions, last_acked_offsets, timeout):
    """Every ReadRecord of the partitions from the log start to the high watermark, once each partition's high
    watermark is past its last acked offset (it can lag just after a fault heals)."""
    deadline = time.monotonic() + timeout
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "delivery-checker-%s" % uuid.uuid4().hex,
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "log_level": 3,
        }
    )
    try:
        ends = {}
        for partition in partitions:
            needed = last_acked_offsets.get(partition, -1) + 1
            while True:
                try:
                    _, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=5)
                except Exception:  # no leader yet: ask again
                    high = -1
                if high >= needed:
                    ends[partition] = high
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(
                        "%s-%d: high watermark %d still short of the last acked offset %d after "
                        "%.0f s" % (topic, partition, high, needed - 1, timeout)
                    )
                time.sleep(POLL_INTERVAL_S)
        positions = {partition: 0 for partition in partitions}
        pending = {partition for partition in partitions if ends[partition] > 0}
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING) for partition in pending])
        records = []
        last_error = None
        while pending:
            if time.monotonic() > deadline:
                raise AssertionError(
                    "%s: read-back stopped short: positions %s, ends %s after %.0f s (last error "
                    "%s)" % (topic, positions, ends, timeout, last_error)
                )
            for message in consumer.consume(500, POLL_INTERVAL_S * 4):
                if message.error() is not None:  # transient (a broker still away): the deadline bounds it
                    last_error = message.error()
                    continue
                if message.offset() < ends[message.partition()]:
                    records.append(ReadRecord(message.partition(), message.offset(), message.value()))
            # The position, not the last record, says when a partition is read: it also steps over control records.
            for position in consumer.position([TopicPartition(topic, p) for p in pending]):
                positions[position.partition] = position.offset
                if position.offset >= ends[position.partition]:
                    pending.discard(position.partition)
        return records
    finally:
        consumer.close()
