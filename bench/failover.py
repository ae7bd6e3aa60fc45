"""Controller failover and partition-leader failover times on local kafka-zk brokers with many partitions.

One run: create the partitions, then (a) kill -9 the controller, (b) kill -9 the non-controller broker leading
the most partitions, (c) SIGTERM another one; each time until ZooKeeper's state znodes, then a surviving
broker's Metadata, give every partition the broker led a live leader. Killed brokers are restarted between cases.
"""

import argparse
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from targets import ZkView, free_port, percentile, rss_mb  # noqa: E402

from kafka_zk.client.connection import BrokerConnection  # noqa: E402
from kafka_zk.log.open_files import default_capacity  # noqa: E402
from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402
from kafka_zk.tools.reference_broker import ReferenceBrokerProcess  # noqa: E402

METADATA_API_KEY = 3
POLL_PAUSE = 0.02
LOG_TIME_FORMAT = "%Y-%m-%d %H:%M:%S,%f"


def metadata_leaders(broker, topics):
    """{(topic, partition): leader} from one broker's Metadata answer (its metadata cache); -1 on an error."""
    connection = BrokerConnection(broker.host, broker.port, client_id="failover-bench", timeout=60)
    try:
        response = connection.request(
            METADATA_API_KEY,
            {
                "topics": [{"name": topic} for topic in topics],
                "allow_auto_topic_creation": False,
                "include_cluster_authorized_operations": False,
                "include_topic_authorized_operations": False,
            },
        )
    finally:
        connection.close()
    out = {}
    for topic in response["topics"]:
        for partition in topic["partitions"]:
            ok = topic["error_code"] == 0 and partition["error_code"] == 0
            out[(topic["name"], partition["partition_index"])] = partition["leader_id"] if ok else -1
    return out


def wait_until(condition, timeout, what):
    """Poll condition() until it is true; returns the seconds it took, the number of polls, and how long
    the last poll took (the resolution of the measurement)."""
    start = time.monotonic()
    polls = 0
    while True:
        polls += 1
        poll_start = time.monotonic()
        if condition():
            return time.monotonic() - start, polls, time.monotonic() - poll_start
        if time.monotonic() - start > timeout:
            raise RuntimeError("%s not reached after %.0fs" % (what, timeout))
        time.sleep(POLL_PAUSE)


def log_line_time(broker, marker, offset, name="server.log"):
    """Wall-clock time of the first line of the broker's log `name` after `offset` containing `marker`, or None
    (controller lines are in controller.log, as Kafka's log4j.properties routes them)."""
    with open(broker.log_path(name), "rb") as handle:
        handle.seek(offset)
        for raw in handle:
            line = raw.decode(errors="replace")
            if marker in line and line.startswith("["):
                stamp = line[1 : line.index("]")]
                return datetime.strptime(stamp, LOG_TIME_FORMAT).timestamp()
    return None


def wait_for_log_line(broker, marker, offset, timeout=30.0, name="server.log"):
    """log_line_time, waiting (bounded) for the line to be written."""
    deadline = time.monotonic() + timeout
    while True:
        found = log_line_time(broker, marker, offset, name)
        if found is not None or time.monotonic() > deadline:
            return found
        time.sleep(POLL_PAUSE)


def metadata_applied(cluster, survivors, offsets):
    """When the last of the survivors applied its first UpdateMetadata after `offsets` (the brokers log each one
    they apply): the moment every live broker serves the new leaders, which a poll of one broker confirms but
    can only see up to a poll late, and its Metadata requests of every partition load the broker it polls."""
    times = [wait_for_log_line(cluster.broker(b), "UpdateMetadata from controller", offsets[b]) for b in survivors]
    return None if None in times else max(times)


def writes_our_log_lines(cluster):
    """Whether every broker is kafka-zk's, whose log lines the times "after the election" are read from; Apache
    Kafka's JVM brokers word theirs otherwise, so those times are left out for them (not waited for)."""
    return not any(isinstance(broker, ReferenceBrokerProcess) for broker in cluster.brokers)


def log_offsets(cluster, name="server.log"):
    return {b.broker_id: (b.log_path(name).stat().st_size if b.log_path(name).exists() else 0) for b in cluster.brokers}


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as handle:
        fields = handle.read().split(")")[-1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(cluster, seconds):
    """Each broker's CPU use (percent of one core) over `seconds` with no client traffic."""
    pids = [b.pid() for b in cluster.brokers]
    before = [cpu_seconds(pid) for pid in pids]
    time.sleep(seconds)
    return [100.0 * (cpu_seconds(pid) - used) / seconds for pid, used in zip(pids, before)]


# ZooKeeper expires a session timeout after the last heartbeat it received (kazoo sends one about every
# third of the timeout when idle), so after a kill -9 detection takes between ~2/3 of the timeout and the timeout
# plus one tick; the times below are also given from the moment the controller reacted (its log line).


class FailoverWatch:
    """After a broker dies: when the controller's ZooKeeper state, then a survivor's Metadata, show live
    leaders for every partition the dead broker led. Each time is the finish of the first poll that saw it,
    so it is late by at most one poll; ZooKeeper polls re-read only the partitions not moved yet, and the
    Metadata polls start once ZooKeeper is done (the controller writes ZooKeeper before telling brokers)."""

    def __init__(self, view, survivor, topics, dead, led, timeout):
        self.view, self.survivor, self.topics = view, survivor, topics
        self.dead, self.led, self.timeout = dead, set(led), timeout

    def _moved(self, leader):
        return leader >= 0 and leader != self.dead

    def run(self, start):
        pending = set(self.led)

        def zk_moved():
            states = self.view.states(sorted(pending))
            pending.difference_update(tp for tp, s in states.items() if s is not None and self._moved(s[0]))
            return not pending

        def metadata_moved():
            try:
                leaders = metadata_leaders(self.survivor, self.topics)
            except Exception:
                return False
            return all(self._moved(leaders.get(tp, -1)) for tp in self.led)

        zk_polls = wait_until(zk_moved, self.timeout, "ZooKeeper leaders")[1:]
        results = {"zk": (time.monotonic() - start, zk_polls)}
        metadata_polls = wait_until(metadata_moved, self.timeout, "Metadata leaders")[1:]
        results["metadata"] = (time.monotonic() - start, metadata_polls)
        return results


class AcksAllProducer(threading.Thread):
    """An acks=all producer sending at a steady rate, round-robin over the given partitions, for the whole of a
    clean shutdown; keeps each delivery's latency and the errors librdkafka gave up on (it retries retriable
    ones itself within delivery.timeout.ms, so any error reported here is one a client would have seen)."""

    VALUE = b"v" * 100

    def __init__(self, bootstrap, partitions, rate):
        super().__init__(daemon=True)
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "log_level": 3})
        self.partitions, self.rate = partitions, rate
        self.latencies, self.errors = [], []
        self.sent = 0
        self.stopping = threading.Event()

    def _delivered(self, error, message, sent_at):
        if error is not None:
            self.errors.append(error)
        else:
            self.latencies.append(time.monotonic() - sent_at)

    def run(self):
        start = time.monotonic()
        while not self.stopping.is_set():
            topic, partition = self.partitions[self.sent % len(self.partitions)]
            now = time.monotonic()
            try:
                self.producer.produce(
                    topic, self.VALUE, partition=partition, on_delivery=lambda e, m, t=now: self._delivered(e, m, t)
                )
                self.sent += 1
            except BufferError:
                pass
            self.producer.poll(0)
            pause = start + self.sent / self.rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        self.producer.flush(60)

    def stop(self):
        self.stopping.set()
        self.join(90)
        return self

    def summary(self):
        latencies = sorted(self.latencies)
        kinds = {}
        for error in self.errors:
            name = "%s%s" % (KafkaError(error.code()).name(), " (retriable)" if error.retriable() else "")
            kinds[name] = kinds.get(name, 0) + 1
        return "%d sent, %d delivered, %d failed%s; delivery latency max %.2fs, p99 %.2fs" % (
            self.sent,
            len(latencies),
            len(self.errors),
            " (%s)" % ", ".join("%s x%d" % item for item in sorted(kinds.items())) if kinds else "",
            percentile(latencies, 1.0),
            percentile(latencies, 0.99),
        )


def led_by(states, broker_id):
    return [tp for tp, state in states.items() if state is not None and state[0] == broker_id]


def full_isr(view, rf, timeout):
    return wait_until(
        lambda: all(s is not None and len(s[1]) == rf for s in view.states().values()), timeout, "full ISRs"
    )[0]


MAX_SOCKET_TIMEOUT_S = 300  # librdkafka's upper bound of socket.timeout.ms


def create_topics(cluster, topics, per_topic, rf, timeout, per_request=5000):
    """In requests of about ``per_request`` partitions, each given up to ``timeout`` seconds: Kafka 2.5.1 answers a
    CreateTopics once every broker has the new partitions in its metadata, which for 5,000 partitions took it longer
    than librdkafka's default socket.timeout.ms (60 s), its cap on any request."""
    admin = AdminClient(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "log_level": 3,
            "socket.timeout.ms": int(min(timeout + 30, MAX_SOCKET_TIMEOUT_S) * 1000),
        }
    )
    step = max(1, per_request // per_topic)
    for first in range(0, len(topics), step):
        futures = admin.create_topics(
            [NewTopic(t, per_topic, rf) for t in topics[first : first + step]],
            operation_timeout=timeout,
            request_timeout=timeout + 30,
        )
        for future in futures.values():
            future.result(timeout + 60)


def controller_failover(cluster, view, topics, args, session_s):
    controller = view.controller()
    states = view.states()
    led = led_by(states, controller)
    survivor = next(b for b in cluster.brokers if b.broker_id != controller)
    offsets = log_offsets(cluster)
    controller_offsets = log_offsets(cluster, "controller.log")
    watch = FailoverWatch(view, survivor, topics, controller, led, args.timeout)
    wall0, start = time.time(), time.monotonic()
    cluster.broker(controller).kill()
    new_controller = None

    def moved():
        nonlocal new_controller
        new_controller = view.controller()
        return new_controller is not None and new_controller != controller

    # Polled before the leader watch: the new controller's id names the log to read afterwards.
    wait_until(moved, args.timeout, "a new controller")
    znode_seconds = time.monotonic() - start
    results = watch.run(start)
    new = cluster.broker(new_controller)
    elected = log_line_time(new, "elected controller with epoch", controller_offsets[new_controller], "controller.log")
    loaded = applied = None
    if writes_our_log_lines(cluster):
        loaded = wait_for_log_line(new, "] loaded ", controller_offsets[new_controller], name="controller.log")
        survivors = [b.broker_id for b in cluster.brokers if b.broker_id != controller]
        applied = metadata_applied(cluster, survivors, offsets)
    print(
        "(a) controller failover: killed controller %d (led %d partitions); new controller %d"
        % (controller, len(led), new_controller)
    )
    print("    new controller znode after %.2fs" % znode_seconds)
    if elected and loaded:
        print(
            "    'elected controller' log line at +%.2fs; state loaded (and offline partitions elected) "
            "%.3fs later" % (elected - wall0, loaded - elected)
        )
    for key in ("zk", "metadata"):
        seconds, polls = results[key]
        print(
            "    all %d partitions it led have a live leader in %-8s after %.2fs (%+.2fs vs the %.0fs session "
            "timeout, %s after the election; %d polls, last %.2fs)"
            % (
                len(led),
                key,
                seconds,
                seconds - session_s,
                session_s,
                "%.2fs" % (seconds - (elected - wall0)) if elected else "?",
                *polls,
            )
        )
    if applied and elected:
        print(
            "    every live broker applied the new leaders' UpdateMetadata %.2fs after the election (their logs)"
            % (applied - elected)
        )
    return controller, {
        "load": loaded - elected if elected and loaded else None,
        "zk": results["zk"][0],
        "metadata": results["metadata"][0],
        "applied": applied - elected if applied and elected else None,
    }


def restart(cluster, view, broker_id, rf, args):
    start = time.monotonic()
    cluster.broker(broker_id).start(timeout=args.timeout)
    started = time.monotonic() - start
    isr = full_isr(view, rf, args.timeout)
    print("    restarted broker %d in %.2fs; all ISRs full again %.2fs later" % (broker_id, started, isr))
    return started, isr


def leader_failover(cluster, view, topics, args, session_s, clean):
    controller = view.controller()
    states = view.states()
    candidates = [b.broker_id for b in cluster.brokers if b.broker_id != controller]
    victim = max(candidates, key=lambda b: len(led_by(states, b)))
    led = led_by(states, victim)
    survivor = next(b for b in cluster.brokers if b.broker_id != victim)
    offsets = log_offsets(cluster)
    controller_offsets = log_offsets(cluster, "controller.log")
    watch = FailoverWatch(view, survivor, topics, victim, led, args.timeout)
    producer = None
    if clean:
        # 1,000 records/s over the first tenth of the topics (every broker leads some of their partitions)
        producer = AcksAllProducer(
            cluster.bootstrap_servers,
            [tp for tp in sorted(states) if tp[0] in topics[: max(1, len(topics) // 10)]],
            args.producer_rate,
        )
        producer.start()
        wait_until(lambda: len(producer.latencies) >= args.producer_rate, args.timeout, "the producer's first second")
    wall0, start = time.time(), time.monotonic()
    exited = []
    if clean:

        def stop():
            cluster.broker(victim).stop()
            exited.append(time.monotonic() - start)

        stopper = threading.Thread(target=stop)
        stopper.start()
    else:
        cluster.broker(victim).kill()
    results = watch.run(start)
    if clean:
        stopper.join()
        producer.stop()
    stopped = exited[0] if exited else None
    noticed = log_line_time(
        cluster.broker(controller), "broker change:", controller_offsets[controller], "controller.log"
    )
    applied = None
    if writes_our_log_lines(cluster):
        applied = metadata_applied(cluster, [b.broker_id for b in cluster.brokers if b.broker_id != victim], offsets)
    label = "(c) clean shutdown (SIGTERM: a controlled shutdown moves leaders first)" if clean else "(b) leader kill -9"
    print("%s of broker %d, leader of %d partitions (controller %d)" % (label, victim, len(led), controller))
    if noticed:
        print("    controller logged the broker change at +%.2fs" % (noticed - wall0))
    if stopped is not None:
        print("    the broker process exited after %.2fs" % stopped)
    for key in ("zk", "metadata"):
        seconds, polls = results[key]
        print(
            "    all %d partitions it led have a live leader in %-8s after %.2fs (%+.2fs vs the %.0fs session "
            "timeout, %s after the controller noticed; %d polls, last %.2fs)"
            % (
                len(led),
                key,
                seconds,
                seconds - session_s,
                session_s,
                "%.2fs" % (seconds - (noticed - wall0)) if noticed else "?",
                *polls,
            )
        )
    if producer is not None:
        print(
            "    acks=all producer, %d records/s for the whole shutdown: %s" % (args.producer_rate, producer.summary())
        )
    if applied and clean:
        print(
            "    every live broker applied the new leaders' UpdateMetadata %.2fs after SIGTERM (their logs)"
            % (applied - wall0)
        )
    elif applied and noticed:
        print(
            "    every live broker applied the new leaders' UpdateMetadata %.2fs after the controller noticed "
            "(their logs)" % (applied - noticed)
        )
    return victim, {"zk": results["zk"][0], "metadata": results["metadata"][0]}


def create_partitions(cluster, view, topics, per_topic, args):
    """Create the topics (``per_topic`` partitions each, RF --replication-factor) and wait until every partition has
    a leader in ZooKeeper and in every broker's Metadata, and a full ISR; the seconds until the Metadata showed them."""
    start = time.monotonic()
    create_topics(cluster, topics, per_topic, args.replication_factor, args.timeout)
    answered = time.monotonic() - start
    wait_until(
        lambda: all(s is not None and s[0] >= 0 for s in view.states().values()),
        args.timeout,
        "leaders of new partitions",
    )
    in_zk = time.monotonic() - start
    for broker in cluster.brokers:
        wait_until(
            lambda: all(v >= 0 for v in metadata_leaders(broker, topics).values()), args.timeout, "Metadata leaders"
        )
    in_metadata = time.monotonic() - start
    full_isr(view, args.replication_factor, args.timeout)
    print(
        "creation: CreateTopics answered %.2fs; all leaders in ZooKeeper %.2fs; in every broker's "
        "Metadata %.2fs; all ISRs full %.2fs" % (answered, in_zk, in_metadata, time.monotonic() - start)
    )
    return in_metadata


def failover_cases(cluster, view, topics, args, session_s):
    """(a) kill -9 the controller, (b) kill -9 a leader, (c) SIGTERM a broker (unless --no-clean), each victim
    restarted to full ISRs after its case: {"controller": ..., "restart": (start s, full ISR s after the controller
    kill), "leader": ..., "clean": ... or None}."""
    killed, ctrl = controller_failover(cluster, view, topics, args, session_s)
    restarted = restart(cluster, view, killed, args.replication_factor, args)
    killed, lead = leader_failover(cluster, view, topics, args, session_s, clean=False)
    restart(cluster, view, killed, args.replication_factor, args)
    clean = None
    if not args.no_clean:
        stopped, clean = leader_failover(cluster, view, topics, args, session_s, clean=True)
        restart(cluster, view, stopped, args.replication_factor, args)  # after a clean shutdown
    return {"controller": ctrl, "restart": restarted, "leader": lead, "clean": clean}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--partitions", type=int, default=1000, help="partitions in total")
    parser.add_argument("--topics", type=int, default=1, help="spread the partitions over this many topics")
    parser.add_argument("--replication-factor", type=int, default=3)
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--session-timeout-ms", type=int, default=6000)
    parser.add_argument("--timeout", type=float, default=600.0, help="bound on every wait, seconds")
    parser.add_argument("--no-clean", action="store_true", help="skip the clean-shutdown case")
    parser.add_argument(
        "--producer-rate",
        type=int,
        default=1000,
        help="records/s of the acks=all producer running through the clean shutdown",
    )
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    session_s = args.session_timeout_ms / 1000.0
    per_topic = args.partitions // args.topics
    topics = ["failover-%d" % i for i in range(args.topics)]
    partitions = [(t, p) for t in topics for p in range(per_topic)]
    replicas = -(-len(partitions) * args.replication_factor // args.brokers)
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    data_dir = tempfile.mkdtemp(prefix="kz-failover-")
    cluster = LocalCluster(
        data_dir,
        brokers=args.brokers,
        zk_port=free_port(),
        broker_ports=[free_port() for _ in range(args.brokers)],
        overrides={"zookeeper.session.timeout.ms": args.session_timeout_ms},
    )
    view = None
    print(
        "%d partitions (%d topics x %d), RF %d, %d brokers, zookeeper.session.timeout.ms=%d; data in %s"
        % (
            len(partitions),
            args.topics,
            per_topic,
            args.replication_factor,
            args.brokers,
            args.session_timeout_ms,
            data_dir,
        )
    )
    print(
        "%d replicas per broker; descriptor limit %d, of which the brokers keep at most %d segment files open"
        % (replicas, limit, default_capacity())
    )
    try:
        start = time.monotonic()
        cluster.start(timeout=args.timeout)
        print("cluster started in %.2fs" % (time.monotonic() - start))
        view = ZkView(cluster.zk_connect, partitions)
        in_metadata = create_partitions(cluster, view, topics, per_topic, args)
        print(
            "idle broker CPU (%% of a core, 5s, no clients): %s; RSS MB: %s; open descriptors: %s"
            % (
                " ".join("%.0f" % c for c in idle_cpu(cluster, 5.0)),
                " ".join("%.0f" % rss_mb(b.pid()) for b in cluster.brokers),
                " ".join(str(len(os.listdir("/proc/%d/fd" % b.pid()))) for b in cluster.brokers),
            )
        )
        cases = failover_cases(cluster, view, topics, args, session_s)
        ctrl, lead, clean = cases["controller"], cases["leader"], cases["clean"]
        print(
            "summary: %d partitions RF %d on %d brokers | create %.1fs | controller kill: state load %s, "
            "leaders zk/metadata %.1f/%.1fs after kill | leader kill: %.1f/%.1fs | clean stop: %s | "
            "restart after kill -9 %.1fs"
            % (
                len(partitions),
                args.replication_factor,
                args.brokers,
                in_metadata,
                "%.2fs" % ctrl["load"] if ctrl["load"] is not None else "?",
                ctrl["zk"],
                ctrl["metadata"],
                lead["zk"],
                lead["metadata"],
                "%.1f/%.1fs" % (clean["zk"], clean["metadata"]) if clean else "-",
                cases["restart"][0],
            )
        )
    finally:
        if view is not None:
            view.close()
        cluster.stop()
        if not args.keep_data:
            shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
