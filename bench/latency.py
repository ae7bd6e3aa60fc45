"""End-to-end latency (produce to consume) at a fixed rate, kafka-zk next to Apache Kafka 2.5.1 and librdkafka's mock
cluster."""

import argparse
import statistics
import struct
import threading
import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from targets import add_common_args, client_config, percentile, print_table, ratio, run_on_targets, unique_topic

VALUE_SIZE = 100
STAMP = struct.Struct(">qB")  # send time (perf_counter_ns) and 1 for a measured record, 0 for warm-up
PADDING = b"p" * (VALUE_SIZE - STAMP.size)
DRAIN_TIMEOUT = 30.0


class LatencyConsumer(threading.Thread):
    """Reads the topic from the start and keeps receive - send of every measured record, in nanoseconds."""

    def __init__(self, bootstrap, topic, partitions, fetch_wait_ms, security=None):
        """``security``: more client settings (security.protocol, sasl.*, ssl.*), for bench/security.py."""
        super().__init__(daemon=True)
        self.consumer = Consumer(
            client_config(
                bootstrap,
                **dict(
                    security or {},
                    **{
                        "group.id": "bench-" + uuid.uuid4().hex,
                        "enable.auto.commit": False,
                        "enable.auto.offset.store": False,
                        "fetch.wait.max.ms": fetch_wait_ms,
                        "fetch.min.bytes": 1,
                    },
                ),
            )
        )
        self.consumer.list_topics(topic, timeout=10)
        self.consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING) for partition in range(partitions)])
        self.latencies = []
        self.errors = []
        self.expected = None  # set by the producer side once it knows how many measured records it sent
        self.deadline = None
        self.ready = threading.Event()

    def run(self):
        try:
            while not self._finished():
                # poll() waits for the first record; consume(n, 0) then takes what else is queued without waiting
                # (consume(n, timeout) would wait for n records or the whole timeout, whichever comes first)
                first = self.consumer.poll(0.05)
                received = time.perf_counter_ns()
                self.ready.set()
                if first is None:
                    continue
                self._take(first, received)
                queued = self.consumer.consume(10000, 0)
                received = time.perf_counter_ns()
                for message in queued:
                    self._take(message, received)
        finally:
            self.consumer.close()

    def _take(self, message, received):
        if message.error():
            self.errors.append(message.error())
            return
        sent, measured = STAMP.unpack_from(message.value())
        if measured:
            self.latencies.append(received - sent)

    def _finished(self):
        if self.expected is None:
            return False
        return len(self.latencies) >= self.expected or time.monotonic() > self.deadline


def paced_produce(producer, topic, rate, seconds, measured, tick_ms):
    """Send rate*seconds records on an even schedule; returns (records sent, achieved rate). The thread wakes
    every ``tick_ms`` and sends the records due by then, each stamped as it is handed to the producer; with
    tick_ms 0 it sleeps until each record's own due time (10,000 wake-ups a second at 10,000 records/s, which
    on a 2-core machine takes a fifth of a core from the brokers under test)."""
    count = int(rate * seconds)
    start = time.perf_counter()
    sent = 0
    while sent < count:
        due = min(count, int((time.perf_counter() - start) * rate) + 1)
        while sent < due:
            value = STAMP.pack(time.perf_counter_ns(), measured) + PADDING
            while True:
                try:
                    producer.produce(topic, value)
                    break
                except BufferError:
                    producer.poll(0.001)
            sent += 1
        producer.poll(0)
        ahead = start + sent / rate - time.perf_counter()
        if sent < count and ahead > 0:
            time.sleep(max(ahead, tick_ms / 1000.0))
    return count, count / (time.perf_counter() - start)


def run_case(target, args, acks):
    topic = unique_topic("bench-latency")
    partitions, replicas = target.create_topic(topic, args.partitions, args.replication_factor)
    consumer = LatencyConsumer(target.bootstrap_servers, topic, partitions, args.fetch_wait_ms)
    consumer.start()
    consumer.ready.wait(10)
    failed = []
    producer = Producer(
        client_config(
            target.bootstrap_servers,
            **{
                "acks": acks,
                "linger.ms": args.linger_ms,
                "delivery.report.only.error": True,
                "on_delivery": lambda err, msg: failed.append(err),
            },
        )
    )
    producer.list_topics(topic, timeout=10)
    paced_produce(producer, topic, args.rate, args.warmup, 0, args.tick_ms)
    sent, achieved = paced_produce(producer, topic, args.rate, args.seconds, 1, args.tick_ms)
    consumer.deadline = time.monotonic() + DRAIN_TIMEOUT
    consumer.expected = sent
    producer.flush(DRAIN_TIMEOUT)
    consumer.join(DRAIN_TIMEOUT + 5)
    latencies = sorted(consumer.latencies)
    notes = []
    if failed:
        notes.append("%d delivery errors (%s)" % (len(failed), failed[0]))
    if len(latencies) < sent:
        notes.append("%d of %d received" % (len(latencies), sent))
    if consumer.errors:
        notes.append("%d consume errors (%s)" % (len(consumer.errors), consumer.errors[0]))
    if achieved < 0.95 * args.rate:
        notes.append("send rate only %.0f/s" % achieved)
    figures = {
        name: percentile(latencies, fraction) / 1e6
        for name, fraction in (("p50", 0.5), ("p99", 0.99), ("p99.9", 0.999), ("max", 1.0))
    }
    print(
        "  %-8s acks=%-2d %s  (%d partitions, RF %d) %s"
        % (
            target.name,
            acks,
            "  ".join("%s %.2f ms" % item for item in figures.items()),
            partitions,
            replicas,
            "; ".join(notes),
        )
    )
    return figures, "; ".join(notes)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rate", type=float, default=2000.0, help="records per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds sent first and not measured")
    parser.add_argument("--acks", default="1,-1", help="comma-separated acks settings to run")
    parser.add_argument("--linger-ms", type=int, default=0)
    parser.add_argument(
        "--tick-ms",
        type=float,
        default=1.0,
        help="the producer thread wakes this often and sends the records due (0: once per record)",
    )
    parser.add_argument("--fetch-wait-ms", type=int, default=5, help="consumer fetch.wait.max.ms")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs per acks setting on each target; the table shows the median of each figure",
    )
    add_common_args(parser)
    args = parser.parse_args()
    acks_list = [int(value) for value in args.acks.split(",")]
    print(
        "%.0f records/s of %d bytes for %.0f s (after %.0f s warm-up), linger.ms=%d, fetch.wait.max.ms=%d; "
        "kafka-zk topics RF %d (the mock auto-creates RF 3)"
        % (
            args.rate,
            VALUE_SIZE,
            args.seconds,
            args.warmup,
            args.linger_ms,
            args.fetch_wait_ms,
            args.replication_factor,
        )
    )
    by_target = run_on_targets(args, lambda target: {acks: _repeated(target, args, acks) for acks in acks_list})
    ours, kafka, mock = (by_target.get(name, {}) for name in ("kafka-zk", "kafka", "mock"))
    rows = []
    for acks in acks_list:
        zk_figures, zk_note = ours.get(acks, ({}, ""))
        ka_figures, ka_note = kafka.get(acks, ({}, ""))
        mk_figures, mk_note = mock.get(acks, ({}, ""))
        for name in ("p50", "p99", "p99.9", "max"):
            zk_value, ka_value, mk_value = zk_figures.get(name), ka_figures.get(name), mk_figures.get(name)
            rows.append(
                [
                    "acks=%d %s" % (acks, name),
                    _ms(zk_value),
                    _ms(ka_value),
                    ratio(zk_value, ka_value),
                    _ms(mk_value),
                    ratio(zk_value, mk_value),
                    " ".join(note for note in (zk_note, ka_note, mk_note) if note) if name == "p50" else "",
                ]
            )
    print_table(["latency", "kafka-zk ms", "kafka ms", "ratio kz/kafka", "mock ms", "ratio kz/mock", "notes"], rows)


def _repeated(target, args, acks):
    """run_case --repeat times, each on a fresh topic; per figure the median of the runs, and every run's notes."""
    runs = [run_case(target, args, acks) for _ in range(args.repeat)]
    figures = {name: statistics.median(figures[name] for figures, _ in runs) for name in runs[0][0]}
    return figures, "; ".join(note for _, note in runs if note)


def _ms(value):
    return "-" if value is None else "%.2f" % value


if __name__ == "__main__":
    main()
