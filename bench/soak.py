"""A long run under bounces (issue 35): an acks=all idempotent producer at a steady rate and a consumer group of two
on a local kafka-zk cluster, one broker killed -9 and restarted every --bounce-every seconds, then every partition
read back and compared with what the producer was told was acknowledged.

It records every delivery error by code (count, first and last time), the producer's fatal error (librdkafka's
error_cb with fatal set: the code and text of rd_kafka_fatal_error), each partition's leader and ISR at each bounce
(ZooKeeper's state znodes), the brokers' RSS and open descriptors over time (/proc), acknowledged / failed / lost /
duplicated records, and the "Traceback" lines of every broker log. Exit status 1 when a record failed or was lost,
the producer hit a fatal error, or a broker log holds a traceback.
"""

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from array import array
from dataclasses import asdict, dataclass, field
from pathlib import Path

TREE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(TREE / "bench"))

VALUE_PREFIX = b"soak-"
SEQUENCE_DIGITS = 12
VALUE_SIZE = 100
TOPIC = "soak"
TRACEBACK_MARKER = "Traceback"

# ---------------------------------------------------------------------------------------------------------------
# Pure parts: values, tallies, the accounting of acknowledged vs read back, the verdict and the summary.


def encode_value(sequence, size=VALUE_SIZE):
    """The record value carrying ``sequence``: b"soak-000000000042" padded with dots to ``size`` bytes."""
    head = VALUE_PREFIX + b"%0*d" % (SEQUENCE_DIGITS, sequence)
    return head + b"." * max(0, size - len(head))


def decode_value(value):
    """The sequence number in a value of encode_value, or None for any other value."""
    if value is None or not value.startswith(VALUE_PREFIX):
        return None
    digits = value[len(VALUE_PREFIX) : len(VALUE_PREFIX) + SEQUENCE_DIGITS]
    return int(digits) if len(digits) == SEQUENCE_DIGITS and digits.isdigit() else None


@dataclass
class ErrorCount:
    code: int
    name: str
    count: int = 0
    first: float = 0.0  # seconds since the run's start
    last: float = 0.0
    text: str = ""  # the first error's text


class ErrorTally:
    """Errors by name: how many, when first and last (seconds into the run), and the first one's text."""

    def __init__(self):
        self.by_name = {}

    def add(self, code, name, when, text=""):
        entry = self.by_name.get(name)
        if entry is None:
            entry = self.by_name[name] = ErrorCount(code, name, 0, when, when, text)
        entry.count += 1
        entry.last = when

    def total(self):
        return sum(entry.count for entry in self.by_name.values())

    def as_json(self):
        return {name: asdict(entry) for name, entry in sorted(self.by_name.items())}


class Acknowledgements:
    """What the producer was told, compactly (millions of records): per partition the acknowledged offsets and the
    sequence numbers written there."""

    def __init__(self):
        self.offsets = {}
        self.sequences = {}

    def add(self, partition, offset, sequence):
        if partition not in self.offsets:
            self.offsets[partition], self.sequences[partition] = array("q"), array("q")
        self.offsets[partition].append(offset)
        self.sequences[partition].append(sequence)

    def count(self):
        return sum(len(offsets) for offsets in self.offsets.values())

    def partitions(self):
        return sorted(self.offsets)

    def of(self, partition):
        """{offset: sequence} of one partition."""
        return dict(zip(self.offsets.get(partition, ()), self.sequences.get(partition, ())))


@dataclass
class Reconciliation:
    acknowledged: int = 0
    read_back: int = 0
    lost: int = 0  # acknowledged (partition, offset, sequence) not read back at that place
    lost_absent: int = 0  # of those, sequences read back nowhere at all
    duplicated: int = 0  # copies of a sequence beyond its first in the read-back
    unacknowledged_read: int = 0  # sequences read back that were never acknowledged (failed or unanswered)
    foreign: int = 0  # values that are not the soak's
    lost_by_partition: dict = field(default_factory=dict)
    first_lost: list = field(default_factory=list)  # up to 10 (partition, offset, sequence)


def reconcile(acknowledgements, read_back, sent):
    """Compare what was acknowledged with what the partitions hold. ``read_back(partition)`` yields (offset,
    value) pairs of the partition from its start to its high watermark; ``sent`` is how many sequence numbers the
    producer handed out (0..sent-1)."""
    result = Reconciliation(acknowledged=acknowledgements.count())
    seen = bytearray(sent)  # copies of each sequence read back, saturating at 255
    acknowledged_sequences = bytearray(sent)
    for partition in acknowledgements.partitions():
        for sequence in acknowledgements.sequences[partition]:
            if 0 <= sequence < sent:
                acknowledged_sequences[sequence] = 1
    missing = []
    for partition in sorted(set(acknowledgements.partitions()) | set(getattr(read_back, "partitions", ()))):
        expected = acknowledgements.of(partition)
        for offset, value in read_back(partition):
            result.read_back += 1
            sequence = decode_value(value)
            if sequence is None or not 0 <= sequence < sent:
                result.foreign += 1
                continue
            if seen[sequence] < 255:
                seen[sequence] += 1
            if seen[sequence] > 1:
                result.duplicated += 1
            if not acknowledged_sequences[sequence]:
                result.unacknowledged_read += 1
            if expected.get(offset) == sequence:
                del expected[offset]
        for offset, sequence in sorted(expected.items()):
            missing.append((partition, offset, sequence))
    for partition, offset, sequence in missing:
        result.lost += 1
        result.lost_by_partition[partition] = result.lost_by_partition.get(partition, 0) + 1
        if not 0 <= sequence < sent or not seen[sequence]:
            result.lost_absent += 1
        if len(result.first_lost) < 10:
            result.first_lost.append((partition, offset, sequence))
    return result


def partition_health(states, replication_factor, min_insync):
    """From {partition: (leader, isr) or None}: the partitions without a leader, with fewer in-sync replicas than
    min.insync.replicas (acks=all fails there), and with fewer than the replication factor."""
    leaderless = sorted(p for p, s in states.items() if s is None or s[0] < 0)
    below_min = sorted(p for p, s in states.items() if s is None or len(s[1]) < min_insync)
    under = sorted(p for p, s in states.items() if s is None or len(s[1]) < replication_factor)
    return {"leaderless": leaderless, "below_min_isr": below_min, "under_replicated": under}


def traceback_lines(text):
    """Lines of a log holding the traceback marker, numbered from 1."""
    return [(number, line) for number, line in enumerate(text.splitlines(), 1) if TRACEBACK_MARKER in line]


def failures(report):
    """Why the run failed (empty when it passed): failed or lost records, a fatal producer error, tracebacks."""
    reasons = []
    records = report["records"]
    if records["failed"]:
        reasons.append("%d records failed" % records["failed"])
    if records["lost"]:
        reasons.append("%d acknowledged records lost" % records["lost"])
    if records["unanswered"]:
        reasons.append("%d records never answered" % records["unanswered"])
    if report["producer"]["fatal"]:
        reasons.append("the producer hit a fatal error")
    tracebacks = sum(len(found) for found in report["tracebacks"].values())
    if tracebacks:
        reasons.append("%d tracebacks in broker logs" % tracebacks)
    if report.get("aborted"):
        reasons.append("the run was aborted: %s" % report["aborted"])
    return reasons


def lives(samples, settle=20.0):
    """Per life of a broker process (its pid) in (run seconds, pid, RSS MiB, descriptors) samples: (pid, first
    and last sample time, RSS and descriptors of its last sample, their maxima past its first ``settle`` seconds);
    a restarted broker's first seconds (a small, growing process) would otherwise pass for a change."""
    by_pid = {}
    for at, pid, rss, descriptors in samples:
        by_pid.setdefault(pid, []).append((at, rss, descriptors))
    out = []
    for pid, own in by_pid.items():
        settled = [s for s in own if s[0] - own[0][0] >= settle] or own[-1:]
        out.append(
            {
                "pid": pid,
                "first": own[0][0],
                "last": own[-1][0],
                "rss_last": own[-1][1],
                "descriptors_last": own[-1][2],
                "rss_max": max(s[1] for s in settled),
                "descriptors_max": max(s[2] for s in settled),
            }
        )
    return sorted(out, key=lambda life: life["first"])


def isr_text(seconds):
    return (
        "ISRs full %.1fs later" % seconds if seconds is not None else "ISRs not full before the next bounce or the end"
    )


def summary_lines(report):
    """The human summary of a report (the JSON written to --report)."""
    settings, records = report["settings"], report["records"]
    lines = [
        "soak: %d brokers, %d partitions RF %d min.insync.replicas %d, %d records/s for %.1f min, a bounce every "
        "%ds (%s); ran %.0fs"
        % (
            settings["brokers"],
            settings["partitions"],
            settings["replication_factor"],
            settings["min_insync_replicas"],
            settings["rate"],
            settings["minutes"],
            settings["bounce_every"],
            settings["victims"],
            report["seconds"],
        ),
        "records: %d sent, %d acknowledged, %d failed, %d unanswered; read back %d: %d lost (%d read nowhere), "
        "%d duplicated, %d unacknowledged but written, %d foreign"
        % (
            records["sent"],
            records["acknowledged"],
            records["failed"],
            records["unanswered"],
            records["read_back"],
            records["lost"],
            records["lost_absent"],
            records["duplicated"],
            records["unacknowledged_read"],
            records["foreign"],
        ),
    ]
    if records["lost_by_partition"]:
        lines.append(
            "  lost by partition: %s; first: %s"
            % (
                ", ".join("%s: %d" % item for item in sorted(records["lost_by_partition"].items())),
                records["first_lost"][:3],
            )
        )
    group = report["group"]
    lines.append(
        "group of %d: read %d records, %d of the acknowledged sequences (%d missing)"
        % (group["members"], group["records"], group["acknowledged_seen"], group["acknowledged_missing"])
    )
    errors = report["producer"]["delivery_errors"]
    lines.append("delivery errors: %s" % ("none" if not errors else ""))
    for name, entry in errors.items():
        lines.append(
            "  %s (%d) x%d at %.0f-%.0fs: %s"
            % (name, entry["code"], entry["count"], entry["first"], entry["last"], entry["text"])
        )
    fatal = report["producer"]["fatal"]
    lines.append(
        "producer fatal error: %s"
        % ("none" if not fatal else "%s (%d) at %.0fs: %s" % (fatal["name"], fatal["code"], fatal["at"], fatal["text"]))
    )
    client = report["producer"]["client_errors"]
    if client:
        lines.append(
            "client errors (error_cb, not fatal): %s"
            % ", ".join("%s x%d" % (name, entry["count"]) for name, entry in client.items())
        )
    for bounce in report["bounces"]:
        before = bounce["before"]
        lines.append(
            "bounce %d at %.0fs: broker %d%s killed, restarted in %s, %s; before: %d leaderless, "
            "%d under-replicated; when it served: %s"
            % (
                bounce["number"],
                bounce["at"],
                bounce["victim"],
                " (controller)" if bounce["victim"] == bounce["controller"] else "",
                "%.1fs" % bounce["restart_seconds"] if bounce["restart_seconds"] is not None else "FAILED",
                isr_text(bounce.get("full_isr_seconds")),
                len(before["leaderless"]),
                len(before["under_replicated"]),
                "%d leaderless, %d under-replicated"
                % (len(bounce["after"]["leaderless"]), len(bounce["after"]["under_replicated"]))
                if bounce["after"]
                else "-",
            )
        )
    if report["longest_leaderless"]:
        lines.append(
            "longest leaderless stretch seen by the sampler: %s"
            % ", ".join("p%s %.0fs" % item for item in sorted(report["longest_leaderless"].items()))
        )
    for broker, samples in sorted(report["resources"].items()):
        lines.append(
            "broker %s, max RSS MiB / descriptors per life (after its first 20s): %s (%d samples)"
            % (
                broker,
                ", ".join("%.0f/%d" % (life["rss_max"], life["descriptors_max"]) for life in lives(samples)),
                len(samples),
            )
        )
    tracebacks = report["tracebacks"]
    lines.append(
        "tracebacks in broker logs: %s"
        % (
            "none"
            if not any(tracebacks.values())
            else ", ".join("%s: %d" % (path, len(found)) for path, found in sorted(tracebacks.items()) if found)
        )
    )
    reasons = failures(report)
    lines.append("verdict: %s" % ("PASS" if not reasons else "FAIL (%s)" % "; ".join(reasons)))
    return lines


# ---------------------------------------------------------------------------------------------------------------
# The run: a cluster, a producer, a group, the bouncer and the sampler.


def client_logger(path):
    """librdkafka's log lines (connection refusals at each bounce, idempotence notices) into a file of the run's
    folder rather than onto the summary."""
    logger = logging.getLogger("soak-clients")
    if not logger.handlers:
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
        logger.setLevel(logging.DEBUG)
    return logger


class Clock:
    def __init__(self):
        self.start = time.monotonic()

    def now(self):
        return time.monotonic() - self.start


class SoakProducer(threading.Thread):
    """An acks=all idempotent producer at a steady rate, partition = sequence mod partitions; keeps the
    acknowledgements, the delivery errors and the fatal error."""

    def __init__(self, bootstrap, partitions, rate, clock, settings):
        super().__init__(daemon=True, name="soak-producer")
        from confluent_kafka import Producer

        config = {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 5,
            "log_level": 6,
            "error_cb": self._error,
        }
        config.update(settings)
        self.producer = Producer(config)
        self.partitions, self.rate, self.clock = partitions, rate, clock
        self.acknowledgements = Acknowledgements()
        self.delivery_errors, self.client_errors = ErrorTally(), ErrorTally()
        self.failed = 0
        self.sent = 0
        self.fatal = None
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    def _error(self, error):
        when = self.clock.now()
        if error.fatal():
            # librdkafka hands error_cb the underlying code and the text of rd_kafka_fatal_error for a fatal error
            if self.fatal is None:
                self.fatal = {"code": error.code(), "name": error.name(), "text": error.str(), "at": when}
                print("[%6.0fs] producer FATAL error: %s: %s" % (when, error.name(), error.str()), flush=True)
        else:
            self.client_errors.add(error.code(), error.name(), when, error.str())

    def _delivered(self, error, message):
        if error is None:
            sequence = decode_value(message.value())
            self.acknowledgements.add(message.partition(), message.offset(), -1 if sequence is None else sequence)
            return
        self.failed += 1
        when = self.clock.now()
        if error.name() not in self.delivery_errors.by_name:
            print("[%6.0fs] first delivery error %s: %s" % (when, error.name(), error.str()), flush=True)
        self.delivery_errors.add(error.code(), error.name(), when, error.str())

    def run(self):
        from confluent_kafka import KafkaException

        start = time.monotonic()
        while not self.stopping.is_set():
            try:
                self.producer.produce(
                    TOPIC,
                    encode_value(self.sent),
                    partition=self.sent % self.partitions,
                    on_delivery=self._delivered,
                )
                self.sent += 1
            except BufferError:
                self.producer.poll(0.05)
                continue
            except KafkaException as error:  # after a fatal error produce() refuses every record
                if self.fatal is None:
                    kafka_error = error.args[0]
                    self.fatal = {
                        "code": kafka_error.code(),
                        "name": kafka_error.name(),
                        "text": kafka_error.str(),
                        "at": self.clock.now(),
                    }
                self.producer.poll(0.5)
                continue
            self.producer.poll(0)
            pause = start + self.sent / self.rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)

    def finish(self, timeout):
        """Stop producing and wait (bounded) for every answer; how many stayed unanswered."""
        self.stopping.set()
        self.join(60)
        return self.producer.flush(timeout)


class GroupMember(threading.Thread):
    """One member of the soak's consumer group; counts the copies of each sequence it reads."""

    def __init__(self, bootstrap, group, seen, lock, number, logger):
        super().__init__(daemon=True, name="soak-consumer-%d" % number)
        from confluent_kafka import Consumer

        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": True,
                "log_level": 4,
                "logger": logger,
            }
        )
        self.seen, self.lock = seen, lock
        self.records = 0
        self.errors = ErrorTally()
        self.stopping = threading.Event()
        self.start_time = time.monotonic()

    def run(self):
        self.consumer.subscribe([TOPIC])
        try:
            while not self.stopping.is_set():
                for message in self.consumer.consume(500, 0.5):
                    if message.error() is not None:
                        error = message.error()
                        self.errors.add(error.code(), error.name(), time.monotonic() - self.start_time, error.str())
                        continue
                    sequence = decode_value(message.value())
                    self.records += 1
                    if sequence is not None:
                        with self.lock:
                            if sequence >= len(self.seen):
                                self.seen.extend(bytes(sequence + 1 - len(self.seen) + 100000))
                            if self.seen[sequence] < 255:
                                self.seen[sequence] += 1
        finally:
            self.consumer.close()


class Group:
    def __init__(self, bootstrap, members, logger):
        self.seen, self.lock = bytearray(), threading.Lock()
        group = "soak-group-%d" % os.getpid()
        self.members = [GroupMember(bootstrap, group, self.seen, self.lock, n, logger) for n in range(members)]

    def start(self):
        for member in self.members:
            member.start()

    def records(self):
        return sum(member.records for member in self.members)

    def missing(self, acknowledgements):
        with self.lock:
            return sum(
                1
                for partition in acknowledgements.partitions()
                for sequence in acknowledgements.sequences[partition]
                if sequence >= len(self.seen) or not self.seen[sequence]
            )

    def stop(self):
        for member in self.members:
            member.stopping.set()
        for member in self.members:
            member.join(60)


def topic_states(connect, partitions):
    """The bench's ZooKeeper view (targets.ZkView) of the soak topic, its states keyed by partition number."""
    from targets import ZkView

    class TopicStates(ZkView):
        def states(self, partitions=None):
            return {partition: state for (_, partition), state in super().states(partitions).items()}

    return TopicStates(connect, [(TOPIC, partition) for partition in range(partitions)])


def process_resources(pid):
    """(RSS MiB, open descriptors) of a process, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as handle:
            rss = next((int(line.split()[1]) / 1024.0 for line in handle if line.startswith("VmRSS:")), 0.0)
        return rss, len(os.listdir("/proc/%d/fd" % pid))
    except (OSError, StopIteration):
        return None


class Sampler(threading.Thread):
    """Every ``every`` seconds: each broker's RSS and descriptors, and which partitions have no leader (how long
    each stayed so)."""

    def __init__(self, cluster, zk, clock, every):
        super().__init__(daemon=True, name="soak-sampler")
        self.cluster, self.zk, self.clock, self.every = cluster, zk, clock, every
        self.resources = {broker.broker_id: [] for broker in cluster.brokers}
        self.leaderless_since, self.longest_leaderless = {}, {}
        self.stopping = threading.Event()

    def sample(self):
        now = self.clock.now()
        for broker in self.cluster.brokers:
            pid = broker.pid()
            found = process_resources(pid) if pid is not None else None
            if found is not None:
                self.resources[broker.broker_id].append((round(now, 1), pid, round(found[0], 1), found[1]))
        try:
            states = self.zk.states()
        except Exception:  # ZooKeeper busy: the next sample tries again
            return
        for partition, state in states.items():
            if state is None or state[0] < 0:
                since = self.leaderless_since.setdefault(partition, now)
                self.longest_leaderless[partition] = max(self.longest_leaderless.get(partition, 0.0), now - since)
            else:
                self.leaderless_since.pop(partition, None)

    def run(self):
        while not self.stopping.wait(self.every):
            try:
                self.sample()
            except Exception as error:  # e.g. a pid file rewritten by a restart under it: the next sample retries
                print("[%6.0fs] sample skipped: %s" % (self.clock.now(), error), flush=True)


def choose_victim(cluster, zk, victims, number):
    if victims == "controller-first":
        controller = zk.controller()
        if controller is not None:
            return controller
    ids = [broker.broker_id for broker in cluster.brokers]
    return ids[number % len(ids)]


def wait_full_isr(zk, replication_factor, deadline):
    """Seconds until every partition's ISR is full again, or None when ``deadline`` (monotonic) came first."""
    start = time.monotonic()
    while time.monotonic() < deadline:
        states = zk.states()
        if all(state is not None and len(state[1]) >= replication_factor for state in states.values()):
            return time.monotonic() - start
        time.sleep(0.5)
    return None


def bounce(cluster, zk, args, clock, number, next_bounce):
    """Kill -9 one broker and start it again at once; the partition states before the kill and when the restarted
    broker serves, and how long until every ISR was full again (waited for until ``next_bounce``, run seconds)."""
    controller = zk.controller()
    states = zk.states()
    victim = choose_victim(cluster, zk, args.victims, number)
    at = clock.now()
    print("[%6.0fs] bounce %d: kill -9 broker %d (controller %s)" % (at, number + 1, victim, controller), flush=True)
    cluster.broker(victim).kill()
    restart_seconds, error = None, None
    start = time.monotonic()
    try:
        cluster.broker(victim).start(timeout=args.timeout)
        restart_seconds = time.monotonic() - start
    except Exception as failure:  # recorded; the run goes on with the broker down
        error = str(failure)[:2000]
        print("[%6.0fs] broker %d failed to restart: %s" % (clock.now(), victim, error[:300]), flush=True)
    after = zk.states()
    full_isr = None
    if restart_seconds is not None:
        full_isr = wait_full_isr(zk, args.replication_factor, time.monotonic() + next_bounce - clock.now() - 1.0)
    before = partition_health(states, args.replication_factor, args.min_insync_replicas)
    print(
        "[%6.0fs]   broker %d back after %s, %s; before the kill: %d leaderless, %d below min ISR, "
        "%d under-replicated"
        % (
            clock.now(),
            victim,
            "%.1fs" % restart_seconds if restart_seconds is not None else "-",
            isr_text(full_isr),
            len(before["leaderless"]),
            len(before["below_min_isr"]),
            len(before["under_replicated"]),
        ),
        flush=True,
    )
    return {
        "number": number + 1,
        "at": round(at, 1),
        "victim": victim,
        "controller": controller,
        "controller_after": zk.controller(),
        "restart_seconds": restart_seconds,
        "restart_error": error,
        "full_isr_seconds": full_isr,
        "states_before": {p: s for p, s in sorted(states.items())},
        "states_after": {p: s for p, s in sorted(after.items())},
        "before": before,
        "after": partition_health(after, args.replication_factor, args.min_insync_replicas),
    }


def read_partitions(bootstrap, partitions, timeout, logger):
    """read_back for reconcile: each partition from its start to its high watermark, with a consumer of its own."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "soak-read-back-%d" % os.getpid(),
            "enable.auto.commit": False,
            "log_level": 4,
            "logger": logger,
        }
    )

    def read(partition):
        low, high = consumer.get_watermark_offsets(TopicPartition(TOPIC, partition), timeout=30)
        if high <= low:
            return
        consumer.assign([TopicPartition(TOPIC, partition, OFFSET_BEGINNING)])
        deadline = time.monotonic() + timeout
        next_offset = low
        while next_offset < high:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    "partition %d read only to %d of %d after %.0fs" % (partition, next_offset, high, timeout)
                )
            for message in consumer.consume(1000, 1.0):
                if message.error() is not None:
                    continue
                next_offset = message.offset() + 1
                yield message.offset(), message.value()
        consumer.unassign()

    read.partitions = range(partitions)
    read.close = consumer.close
    return read


def broker_tracebacks(cluster):
    """{log path: [(line number, line)]} over every log file of every broker's folder."""
    found = {}
    for broker in cluster.brokers:
        for path in sorted(broker.folder.glob("*.log*")):
            try:
                found[str(path)] = traceback_lines(path.read_text(errors="replace"))
            except OSError:
                continue
    return found


def run(args):
    from targets import create_topic, free_port

    from kafka_zk.tools.local_cluster import LocalCluster, internal_topic_settings

    clock = Clock()
    data_dir = Path(args.dir or tempfile.mkdtemp(prefix="kz-soak-")).resolve()
    overrides = dict(internal_topic_settings(args.brokers))
    if args.session_timeout_ms:
        overrides["zookeeper.session.timeout.ms"] = args.session_timeout_ms
    cluster = LocalCluster(
        data_dir,
        brokers=args.brokers,
        zk_port=free_port(),
        broker_ports=[free_port() for _ in range(args.brokers)],
        overrides=overrides,
    )
    report = {
        "settings": {
            "brokers": args.brokers,
            "partitions": args.partitions,
            "replication_factor": args.replication_factor,
            "min_insync_replicas": args.min_insync_replicas,
            "rate": args.rate,
            "minutes": args.minutes,
            "bounce_every": args.bounce_every,
            "victims": args.victims,
            "message_timeout_ms": args.message_timeout_ms,
            "dir": str(data_dir),
        },
        "bounces": [],
        "aborted": None,
    }
    print("soak: cluster data in %s (the clients' log: clients.log)" % data_dir, flush=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    logger = client_logger(data_dir / "clients.log")
    zk = producer = group = sampler = None
    try:
        cluster.start(timeout=args.timeout)
        create_topic(
            cluster.bootstrap_servers,
            TOPIC,
            args.partitions,
            args.replication_factor,
            timeout=args.timeout,
            config={"min.insync.replicas": str(args.min_insync_replicas)},
        )
        zk = topic_states(cluster.zk_connect, args.partitions)
        sampler = Sampler(cluster, zk, clock, args.sample_every)
        sampler.sample()
        sampler.start()
        group = Group(cluster.bootstrap_servers, 2, logger)
        group.start()
        clock.start = time.monotonic()
        producer = SoakProducer(
            cluster.bootstrap_servers,
            args.partitions,
            args.rate,
            clock,
            dict(
                {"logger": logger},
                **({"message.timeout.ms": args.message_timeout_ms} if args.message_timeout_ms else {}),
            ),
        )
        producer.start()
        end = args.minutes * 60.0
        number = 0
        while clock.now() < end:
            next_bounce = (number + 1) * args.bounce_every
            if next_bounce >= end:
                time.sleep(max(0.0, end - clock.now()))
                break
            time.sleep(max(0.0, next_bounce - clock.now()))
            following = min(end, (number + 2) * args.bounce_every)
            report["bounces"].append(bounce(cluster, zk, args, clock, number, following))
            number += 1
            print(
                "[%6.0fs] %d sent, %d acknowledged, %d failed, group read %d"
                % (clock.now(), producer.sent, producer.acknowledgements.count(), producer.failed, group.records()),
                flush=True,
            )
    except Exception as error:
        report["aborted"] = "%s: %s" % (type(error).__name__, error)
        print("soak aborted: %s" % report["aborted"], flush=True)
    finally:
        unanswered = producer.finish(args.timeout) if producer is not None else 0
        if sampler is not None:
            sampler.stopping.set()
            sampler.join(30)
        records = {"sent": producer.sent if producer else 0, "failed": producer.failed if producer else 0}
        records["unanswered"] = unanswered
        acknowledgements = producer.acknowledgements if producer else Acknowledgements()
        reconciliation = Reconciliation(acknowledged=acknowledgements.count())
        if producer is not None:  # else the cluster or its topic never came up: nothing to read back
            try:
                reading = read_partitions(cluster.bootstrap_servers, args.partitions, args.timeout, logger)
                try:
                    reconciliation = reconcile(acknowledgements, reading, records["sent"])
                finally:
                    reading.close()
            except Exception as error:
                report["aborted"] = report["aborted"] or "read-back: %s" % error
        records.update(asdict(reconciliation))
        missing = 0
        if group is not None:
            deadline = time.monotonic() + 60
            while True:
                missing = group.missing(acknowledgements)
                if not missing or time.monotonic() > deadline:
                    break
                time.sleep(1)
            group.stop()
        report["group"] = {
            "members": len(group.members) if group else 0,
            "records": group.records() if group else 0,
            "acknowledged_seen": acknowledgements.count() - missing,
            "acknowledged_missing": missing,
            "errors": {str(i): m.errors.as_json() for i, m in enumerate(group.members)} if group else {},
        }
        if zk is not None:
            zk.close()
        cluster.stop()
        report["seconds"] = round(clock.now(), 1)
        report["records"] = records
        report["producer"] = {
            "delivery_errors": producer.delivery_errors.as_json() if producer else {},
            "client_errors": producer.client_errors.as_json() if producer else {},
            "fatal": producer.fatal if producer else None,
        }
        report["resources"] = {str(b): s for b, s in sampler.resources.items()} if sampler else {}
        report["longest_leaderless"] = (
            {str(p): round(s, 1) for p, s in sampler.longest_leaderless.items()} if sampler else {}
        )
        report["tracebacks"] = broker_tracebacks(cluster)
    return report, data_dir


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=int, default=3000, help="records/s (default 3000)")
    parser.add_argument("--minutes", type=float, default=20.0, help="how long the producer runs (default 20)")
    parser.add_argument("--bounce-every", type=float, default=120.0, help="seconds between bounces (default 120)")
    parser.add_argument(
        "--victims",
        choices=("in-turn", "controller-first"),
        default="in-turn",
        help="in-turn: brokers 0, 1, 2, 0, ... (the controller among them); controller-first: whichever broker is "
        "the controller at each bounce",
    )
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=12)
    parser.add_argument("--replication-factor", type=int, default=3)
    parser.add_argument("--min-insync-replicas", type=int, default=2)
    parser.add_argument(
        "--message-timeout-ms", type=int, default=0, help="the producer's message.timeout.ms (default: librdkafka's)"
    )
    parser.add_argument(
        "--session-timeout-ms", type=int, default=0, help="the brokers' zookeeper.session.timeout.ms (default: theirs)"
    )
    parser.add_argument("--sample-every", type=float, default=5.0, help="seconds between resource samples")
    parser.add_argument("--timeout", type=float, default=300.0, help="bound on each start, restart and read-back")
    parser.add_argument("--dir", help="the cluster's folder (default: a fresh /tmp/kz-soak-* dir)")
    parser.add_argument("--report", help="where to write the JSON report (default: DIR/soak-report.json)")
    parser.add_argument(
        "--keep-data", action="store_true", help="keep the fresh temp dir after a passing run (a failing one is kept)"
    )
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    report, data_dir = run(args)
    lines = summary_lines(report)
    print("\n".join(lines))
    report_path = Path(args.report) if args.report else data_dir / "soak-report.json"
    passed = not failures(report)
    if passed and not args.dir and not args.keep_data and not args.report:
        report_path = Path(tempfile.gettempdir()) / ("kz-soak-report-%d.json" % os.getpid())
    report_path.write_text(json.dumps(report, indent=1, default=list) + "\n")
    print("report: %s" % report_path)
    if passed and not args.dir and not args.keep_data:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
