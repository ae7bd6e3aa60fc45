"""Consumer-group figures of kafka-zk next to librdkafka's mock cluster, with confluent-kafka group consumers.

Three measures per target: (1) a group consumer (subscribe, auto commit) reads every record of a topic of
100-byte values: the time to join (subscribe -> first record) and records/s from the first record to the last;
(2) rebalance time: 10 members joining one group until every one holds its final assignment, then one member
leaving until the other 9 hold theirs; (3) synchronous OffsetCommit round trips per second from one member.
A kafka-zk cluster the bench starts runs with Kafka's broker defaults for groups (group.initial.rebalance.delay.ms
3000, as the mock's fixed first-join delay; offsets.topic.replication.factor 3), not with the 0 and 1 of the
shipped config/server.properties that local-cluster uses.
"""

import argparse
import time
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from targets import add_common_args, client_config, print_table, ratio, run_on_targets, timed_produce, unique_topic

VALUE_SIZE = 100
MEMBERS = 10
RUN_TIMEOUT = 300.0
# Explicit member timings for both targets: librdkafka's default session.timeout.ms (45 s) would make the
# mock wait up to 44 s for members that do not rejoin; 6 s / 500 ms is what the tests use.
KZ_OVERRIDES = {"group.initial.rebalance.delay.ms": 3000, "offsets.topic.replication.factor": 3}
MEMBER_CONFIG = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 500, "auto.offset.reset": "earliest"}


def group_member(bootstrap, group, **extra):
    settings = dict(MEMBER_CONFIG, **{"group.id": group})
    settings.update(extra)
    return Consumer(client_config(bootstrap, **settings))


def fill_topic(target, partitions, records, replication_factor):
    """A fresh topic holding `records` values; returns (topic, partitions, records the logs hold). acks=-1, so
    that the high watermarks (what a consumer can read) have reached the end when the flush returns."""
    topic = unique_topic("bench-group")
    partitions, _ = target.create_topic(topic, partitions, replication_factor)
    producer = Producer(
        client_config(
            target.bootstrap_servers,
            **{"acks": -1, "linger.ms": 20, "batch.size": 1000000, "queue.buffering.max.messages": 1000000},
        )
    )
    producer.list_topics(topic, timeout=10)
    _, left, note = timed_produce(producer, topic, records, b"v" * VALUE_SIZE, RUN_TIMEOUT)
    if left:
        print("    %d records not delivered (%s)" % (left, note or "flush timed out"))
    watcher = group_member(target.bootstrap_servers, "bench-watermarks")
    try:
        held = sum(
            high - low
            for low, high in (
                watcher.get_watermark_offsets(TopicPartition(topic, p), timeout=10) for p in range(partitions)
            )
        )
    finally:
        watcher.close()
    return topic, partitions, held


def warm_up(bootstrap, topic):
    """One member joins and leaves, so that the offsets topic exists before anything is timed."""
    member = group_member(bootstrap, "bench-warmup-" + uuid.uuid4().hex)
    try:
        member.subscribe([topic])
        deadline = time.monotonic() + RUN_TIMEOUT
        while not member.assignment() and time.monotonic() < deadline:
            member.poll(0.1)
    finally:
        member.close()


def group_consume(bootstrap, topic, expected):
    """(seconds to the first record, records/s after it, records read) for one member reading `expected`."""
    member = group_member(bootstrap, "bench-consume-" + uuid.uuid4().hex, **{"fetch.queue.backoff.ms": 10})
    count = errors = 0
    try:
        start = time.perf_counter()
        member.subscribe([topic])
        first = None
        deadline = start + RUN_TIMEOUT
        while count < expected and time.perf_counter() < deadline:
            for message in member.consume(10000, timeout=1.0):
                if message.error():
                    errors += 1
                    continue
                if first is None:
                    first = time.perf_counter()
                count += 1
        end = time.perf_counter()
    finally:
        member.close()
    if errors:
        print("    %d consume errors" % errors)
    if first is None:
        return None, 0.0, count
    return first - start, (count - 1) / max(end - first, 1e-9), count


class RebalanceWatch:
    """Members of one group and their assignments as the rebalance callbacks report them."""

    def __init__(self, bootstrap, group):
        self.bootstrap = bootstrap
        self.group = group
        self.members = []
        self.assigned = {}  # member index -> set of partitions, None while revoked / not yet assigned
        self.assignments = {}  # member index -> how many assignments it has received

    def add(self, topic):
        index = len(self.members)
        member = group_member(self.bootstrap, self.group)
        self.assigned[index] = None
        self.assignments[index] = 0
        member.subscribe(
            [topic], on_assign=lambda c, tps: self._assign(index, tps), on_revoke=lambda c, tps: self._revoke(index)
        )
        self.members.append(member)

    def _assign(self, index, tps):
        self.assigned[index] = {tp.partition for tp in tps}
        self.assignments[index] += 1

    def _revoke(self, index):
        self.assigned[index] = None

    def remove(self, index):
        self.members[index].close()
        self.members[index] = None
        del self.assigned[index]
        del self.assignments[index]

    def settled(self, partitions, since):
        """Every live member holds an assignment received after the ``since`` snapshot of assignment counts, and
        together they own each partition exactly once."""
        held = list(self.assigned.values())
        if any(h is None for h in held) or any(n <= since.get(i, 0) for i, n in self.assignments.items()):
            return False
        owned = sorted(p for h in held for p in h)
        return owned == list(range(partitions))

    def wait_settled(self, partitions, since, timeout=RUN_TIMEOUT):
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for member in self.members:
                if member is not None:
                    member.poll(0.01)
            if self.settled(partitions, since):
                return True
        return False

    def close(self):
        for member in self.members:
            if member is not None:
                member.close()


def rebalance_times(bootstrap, topic, partitions):
    """(seconds until MEMBERS members that subscribe at once settle, seconds until the rest settle after one
    member leaves); None for a run that did not settle."""
    watch = RebalanceWatch(bootstrap, "bench-rebalance-" + uuid.uuid4().hex)
    try:
        start = time.perf_counter()
        for _ in range(MEMBERS):
            watch.add(topic)
        joined = time.perf_counter() - start if watch.wait_settled(partitions, {}) else None
        before = dict(watch.assignments)
        start = time.perf_counter()
        watch.remove(MEMBERS - 1)
        left = time.perf_counter() - start if watch.wait_settled(partitions, before) else None
    finally:
        watch.close()
    return joined, left


def commit_rate(bootstrap, topic, seconds):
    """Synchronous commits per second of one member's first partition (a new offset each time)."""
    member = group_member(bootstrap, "bench-commit-" + uuid.uuid4().hex, **{"enable.auto.commit": False})
    try:
        member.subscribe([topic])
        deadline = time.monotonic() + RUN_TIMEOUT
        while not member.assignment() and time.monotonic() < deadline:
            member.poll(0.1)
        tp = sorted(member.assignment(), key=lambda t: t.partition)[0]
        count = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            member.commit(offsets=[TopicPartition(tp.topic, tp.partition, count + 1)], asynchronous=False)
            count += 1
        elapsed = time.perf_counter() - start
        committed = member.committed([TopicPartition(tp.topic, tp.partition)], timeout=10)[0].offset
        if committed != count:
            print("    last commit read back as %d, expected %d" % (committed, count))
    finally:
        member.close()
    return count / elapsed


def bench_target(target, args):
    topic, partitions, held = fill_topic(target, args.partitions, args.records, args.replication_factor)
    warm_up(target.bootstrap_servers, topic)
    results = {}
    join, rate, count = group_consume(target.bootstrap_servers, topic, held)
    note = "" if count == held else "%d of %d read" % (count, held)
    if held < args.records:
        note += " log held %d of %d" % (held, args.records)
    results["group consume rec/s"] = (rate, note.strip())
    results["  join to first record s"] = (join, "")
    print(
        "  %-8s consume %d records from %d partitions: join %.2f s, %.0f rec/s %s"
        % (target.name, count, partitions, join or -1, rate, note)
    )
    joined, left = rebalance_times(target.bootstrap_servers, topic, partitions)
    results["%d members join: settled s" % MEMBERS] = (joined, "")
    results["1 of %d leaves: settled s" % MEMBERS] = (left, "")
    print("  %-8s rebalance: %d join %s s, one leaves %s s" % (target.name, MEMBERS, _fmt(joined), _fmt(left)))
    commits = commit_rate(target.bootstrap_servers, topic, args.commit_seconds)
    results["sync commits/s"] = (commits, "")
    print("  %-8s %.0f synchronous commits/s" % (target.name, commits))
    return results


def _fmt(value):
    return "-" if value is None else ("%.2f" % value if value < 100 else "%.0f" % value)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1000000)
    parser.add_argument("--commit-seconds", type=float, default=5.0)
    add_common_args(parser)
    parser.set_defaults(partitions=6)
    args = parser.parse_args()
    print(
        "%d records of %d-byte values; kafka-zk topics %d partitions RF %d (the mock auto-creates 4 "
        "partitions, RF 3); %d members per rebalance"
        % (args.records, VALUE_SIZE, args.partitions, args.replication_factor, MEMBERS)
    )
    by_target = run_on_targets(args, lambda target: bench_target(target, args), KZ_OVERRIDES)
    ours, mock = by_target.get("kafka-zk", {}), by_target.get("mock", {})
    rows = []
    for label in ours or mock:
        zk_value, zk_note = ours.get(label, (None, ""))
        mk_value, mk_note = mock.get(label, (None, ""))
        rows.append(
            [
                label,
                _fmt(zk_value),
                _fmt(mk_value),
                ratio(zk_value, mk_value),
                ("kz: " + zk_note if zk_note else "") + (" mock: " + mk_note if mk_note else ""),
            ]
        )
    print_table(["measure", "kafka-zk", "mock", "ratio kz/mock", "notes"], rows)
    print("rec/s and commits/s: higher is better; seconds: lower is better")


if __name__ == "__main__":
    main()
