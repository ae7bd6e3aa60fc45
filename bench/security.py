"""What security costs: one kafka-zk cluster whose brokers listen on PLAINTEXT and on SASL_SSL (SCRAM-SHA-512
over TLS), measured with confluent-kafka on both listeners against the same topics: produce and consume
throughput, end-to-end latency at a fixed rate, and the brokers' CPU per million records."""

import argparse
import resource
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from latency import LatencyConsumer, paced_produce
from targets import (
    KAFKA_HEAP,
    KZ_BROKERS,
    KafkaTarget,
    KafkaZkTarget,
    client_config,
    free_port,
    per_million,
    percentile,
    print_table,
    timed_produce,
    unique_topic,
    wait_for_leaders,
)

from kafka_zk.tools import configs  # noqa: E402  (targets put the repository on sys.path)
from kafka_zk.tools.command_line import run_tool  # noqa: E402
from kafka_zk.tools.local_cluster import LocalCluster, internal_topic_settings  # noqa: E402
from kafka_zk.tools.secure_material import SecureMaterial  # noqa: E402

VALUE_SIZE = 100
MECHANISM = "SCRAM-SHA-512"
USER, PASSWORD = "bench", "bench-secret"
PROTOCOLS = ("PLAINTEXT", "SASL_SSL")
RUN_TIMEOUT = 300.0
DRAIN_TIMEOUT = 30.0
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required%s;"


class SecureKafkaZkTarget(KafkaZkTarget):
    """Three brokers, each with a PLAINTEXT listener (its LocalCluster port) and a SASL_SSL one; a SCRAM user
    made in ZooKeeper before any broker starts. ``inter_broker`` names the listener replication uses."""

    def __init__(self, keep_data=False, inter_broker="PLAINTEXT"):
        super().__init__(None, keep_data)
        self.inter_broker = inter_broker
        self.sasl_ports = []
        self.material = None

    def start(self):
        self.data_dir = tempfile.mkdtemp(prefix="kafka-zk-bench-")
        self.material = SecureMaterial(Path(self.data_dir) / "secure").create()
        store_password = self.material.passwords()["store"]
        broker_password = self.material.passwords()["users"]["broker"]
        overrides = dict(
            internal_topic_settings(KZ_BROKERS),
            **{
                "sasl.enabled.mechanisms": MECHANISM,
                "listener.name.sasl_ssl.%s.sasl.jaas.config" % MECHANISM.lower(): SCRAM_JAAS
                % (' username="broker" password="%s"' % broker_password if self.inter_broker == "SASL_SSL" else ""),
                "ssl.keystore.type": "PKCS12",
                "ssl.keystore.location": str(self.material.keystore),
                "ssl.keystore.password": store_password,
                "ssl.key.password": store_password,
                "ssl.truststore.type": "PKCS12",
                "ssl.truststore.location": str(self.material.truststore),
                "ssl.truststore.password": store_password,
                "inter.broker.listener.name": self.inter_broker,
                "sasl.mechanism.inter.broker.protocol": MECHANISM,
            },
        )
        ports = [free_port() for _ in range(KZ_BROKERS)]
        self.sasl_ports = [free_port() for _ in range(KZ_BROKERS)]
        self.cluster = LocalCluster(
            self.data_dir,
            brokers=KZ_BROKERS,
            zk_port=free_port(),
            broker_ports=ports,
            overrides=overrides,
            kafka_brokers=self.kafka_brokers,
        )
        for broker, sasl_port in zip(self.cluster.brokers, self.sasl_ports):
            broker.overrides["listeners"] = "PLAINTEXT://127.0.0.1:{port},SASL_SSL://127.0.0.1:%d" % sasl_port
            if self.kafka_brokers:
                broker.heap = KAFKA_HEAP
        self.cluster.zookeeper.start()
        for user, password in ((USER, PASSWORD), ("broker", broker_password)):
            self._add_scram_user(user, password)
        self.cluster.start()
        return self

    def _add_scram_user(self, user, password):
        argv = [
            "--zookeeper",
            self.cluster.zk_connect,
            "--alter",
            "--add-config",
            "%s=[iterations=4096,password=%s]" % (MECHANISM, password),
            "--entity-type",
            "users",
            "--entity-name",
            user,
        ]
        if run_tool(configs.build_parser(), configs.run, argv, sys.stdout, sys.stderr) != 0:
            raise RuntimeError("kafka-configs could not add SCRAM user %s" % user)

    def bootstrap(self, protocol):
        if protocol == "PLAINTEXT":
            return self.bootstrap_servers
        return ",".join("127.0.0.1:%d" % port for port in self.sasl_ports)

    def client_security(self, protocol):
        """librdkafka settings for ``protocol``'s listener."""
        if protocol == "PLAINTEXT":
            return {}
        return {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": MECHANISM,
            "sasl.username": USER,
            "sasl.password": PASSWORD,
            "ssl.ca.location": str(self.material.ca_pem),
        }

    def create_topic(self, topic, partitions, replication_factor, min_insync=2):
        admin = AdminClient(client_config(self.bootstrap_servers))
        futures = admin.create_topics(
            [NewTopic(topic, partitions, replication_factor, config={"min.insync.replicas": str(min_insync)})],
            operation_timeout=30,
        )
        futures[topic].result(30)
        wait_for_leaders(admin, topic, partitions, 30)
        return partitions, replication_factor


class SecureKafkaTarget(SecureKafkaZkTarget):
    """The same two listeners and SCRAM users on Apache Kafka 2.5.1's JVM brokers (heap KAFKA_HEAP): Kafka reads
    the same server.properties settings and the same SCRAM credentials in ZooKeeper."""

    name = KafkaTarget.name
    kafka_brokers = KafkaTarget.kafka_brokers


def client_cpu_seconds():
    """User + system CPU seconds of this process so far: the bench loop and librdkafka's threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CpuMeter:
    """CPU seconds of the brokers (``seconds``) and of this client process (``client``) inside the with-block."""

    def __init__(self, target):
        self.target = target
        self.before = None

    def __enter__(self):
        self.before = (self.target.broker_cpu_seconds(), client_cpu_seconds())
        return self

    def __exit__(self, *exc):
        self.seconds = self.target.broker_cpu_seconds() - self.before[0]
        self.client = client_cpu_seconds() - self.before[1]


def produce_run(target, protocol, topic, args, acks):
    """{"rate", "cpu"}: records/s from the first produce() to the end of flush(), and broker CPU s / M records."""
    failed = []
    producer = Producer(
        client_config(
            target.bootstrap(protocol),
            **dict(
                target.client_security(protocol),
                **{
                    "acks": acks,
                    "linger.ms": args.linger_ms,
                    "batch.size": args.batch_size,
                    "queue.buffering.max.messages": 1000000,
                    "delivery.report.only.error": True,
                    "on_delivery": lambda err, msg: failed.append(err),
                },
            ),
        )
    )
    producer.list_topics(topic, timeout=10)  # connected and authenticated before the clock starts
    with CpuMeter(target) as cpu:
        seconds, left, _ = timed_produce(producer, topic, args.records, b"v" * VALUE_SIZE, RUN_TIMEOUT)
    delivered = args.records - left - len(failed)
    note = (
        "%d undelivered (%s)" % (args.records - delivered, failed[0] if failed else "timeout")
        if delivered < args.records
        else ""
    )
    return {
        "rate": delivered / seconds,
        "cpu": per_million(cpu.seconds, delivered),
        "client": per_million(cpu.client, delivered),
    }, note


def consume_run(target, protocol, topic, partitions):
    """Read the topic from the beginning until every record arrived; {"rate", "cpu"}."""
    consumer = Consumer(
        client_config(
            target.bootstrap(protocol),
            **dict(
                target.client_security(protocol),
                **{
                    "group.id": "bench-" + uuid.uuid4().hex,
                    "enable.auto.commit": False,
                    "enable.auto.offset.store": False,
                    "fetch.queue.backoff.ms": 10,
                },
            ),
        )
    )
    try:
        consumer.list_topics(topic, timeout=10)  # known leaders (and a finished login) before assign
        expected = sum(
            high - low
            for low, high in (
                consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10) for p in range(partitions)
            )
        )
        count, errors = 0, []
        with CpuMeter(target) as cpu:
            start = time.perf_counter()
            consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
            while count < expected and time.perf_counter() < start + RUN_TIMEOUT:
                # no more than are still due: consume(n, timeout) waits out the timeout until n have come
                for message in consumer.consume(min(10000, expected - count), timeout=1.0):
                    if message.error():
                        errors.append(message.error())
                    else:
                        count += 1
            seconds = time.perf_counter() - start
    finally:
        consumer.close()
    note = "%d of %d read" % (count, expected) if count < expected else ""
    if errors:
        note += " %d errors (%s)" % (len(errors), errors[0])
    return {
        "rate": count / seconds,
        "cpu": per_million(cpu.seconds, count),
        "client": per_million(cpu.client, count),
    }, note.strip()


def latency_run(target, protocol, topic, partitions, args):
    """Paced acks=all produce at --rate with a consumer on the same listener; {"p50", "p99", "cpu"} in ms."""
    security = target.client_security(protocol)
    consumer = LatencyConsumer(target.bootstrap(protocol), topic, partitions, args.fetch_wait_ms, security)
    consumer.start()
    consumer.ready.wait(10)
    failed = []
    producer = Producer(
        client_config(
            target.bootstrap(protocol),
            **dict(
                security,
                **{
                    "acks": -1,
                    "linger.ms": args.latency_linger_ms,
                    "delivery.report.only.error": True,
                    "on_delivery": lambda err, msg: failed.append(err),
                },
            ),
        )
    )
    producer.list_topics(topic, timeout=10)
    paced_produce(producer, topic, args.rate, args.warmup, 0, 1.0)
    with CpuMeter(target) as cpu:
        sent, achieved = paced_produce(producer, topic, args.rate, args.seconds, 1, 1.0)
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
    if achieved < 0.95 * args.rate:
        notes.append("send rate only %.0f/s" % achieved)
    return {
        "p50": percentile(latencies, 0.5) / 1e6,
        "p99": percentile(latencies, 0.99) / 1e6,
        "cpu": per_million(cpu.seconds, sent),
        "client": per_million(cpu.client, sent),
    }, "; ".join(notes)


def in_turn(repeat):
    """The protocols in the order of run ``repeat``: alternating which goes first, so drift favours neither."""
    return PROTOCOLS if repeat % 2 == 0 else PROTOCOLS[::-1]


def bench(target, args):
    """{measure: {protocol: [figures of each run]}}, and every run's notes."""
    runs, notes = {}, []

    def keep(measure, protocol, result):
        figures, note = result
        runs.setdefault(measure, {}).setdefault(protocol, []).append(figures)
        if note:
            notes.append("%s %s: %s" % (measure, protocol, note))
        shown = "  ".join("%s %.2f" % item if item[0] != "rate" else "%.0f rec/s" % item[1] for item in figures.items())
        print("  %-22s %-9s %s %s" % (measure, protocol, shown, note))

    for repeat in range(args.repeat):
        consumed = {}
        for acks in (1, -1):
            for protocol in in_turn(repeat):
                topic = unique_topic("bench-sec")
                target.create_topic(topic, args.partitions, args.replication_factor)
                keep(
                    "produce acks=%s" % ("all" if acks == -1 else acks),
                    protocol,
                    produce_run(target, protocol, topic, args, acks),
                )
                consumed.setdefault(acks, topic)
        # both listeners read the same topic (the first acks=1 run of this repeat)
        for protocol in in_turn(repeat):
            keep("consume", protocol, consume_run(target, protocol, consumed[1], args.partitions))
    for repeat in range(args.repeat):
        for protocol in in_turn(repeat):
            topic = unique_topic("bench-sec-latency")
            target.create_topic(topic, args.partitions, args.replication_factor)
            keep("latency acks=all", protocol, latency_run(target, protocol, topic, args.partitions, args))
    return runs, notes


def median_of(figure_runs, name):
    return statistics.median(figures[name] for figures in figure_runs)


def report(runs, args):
    rows = []

    def row(label, values, fmt, target_text=""):
        plain, secure = values["PLAINTEXT"], values["SASL_SSL"]
        rows.append([label, fmt % plain, fmt % secure, "%.2f" % (secure / plain) if plain else "-", target_text])

    def medians(measure, name, scale=1.0):
        return {protocol: median_of(runs[measure][protocol], name) * scale for protocol in PROTOCOLS}

    for measure in ("produce acks=1", "produce acks=all", "consume"):
        row(measure + " rec/s", medians(measure, "rate"), "%.0f", ">= 0.6" if measure.startswith("produce") else "")
        row(measure + " MB/s", medians(measure, "rate", VALUE_SIZE / 1e6), "%.1f")
        row(measure + " broker CPU s/M rec", medians(measure, "cpu"), "%.2f")
        row(measure + " client CPU s/M rec", medians(measure, "client"), "%.2f")
    row("latency acks=all p50 ms", medians("latency acks=all", "p50"), "%.2f")
    row("latency acks=all p99 ms", medians("latency acks=all", "p99"), "%.2f", "<= 1.5")
    row("latency broker CPU s/M rec", medians("latency acks=all", "cpu"), "%.1f")
    row("latency client CPU s/M rec", medians("latency acks=all", "client"), "%.1f")
    print_table(["measure (median of %d)" % args.repeat, "PLAINTEXT", "SASL_SSL", "SASL_SSL/PLAINTEXT", "target"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000, help="records per produce run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case and listener; medians are shown")
    parser.add_argument("--linger-ms", type=int, default=5, help="producer linger.ms of the throughput runs")
    parser.add_argument("--batch-size", type=int, default=16384, help="producer batch.size of the throughput runs")
    parser.add_argument("--rate", type=float, default=10000.0, help="records/s of the latency runs")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds of each latency run")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each latency run")
    parser.add_argument("--latency-linger-ms", type=int, default=1, help="producer linger.ms of the latency runs")
    parser.add_argument("--fetch-wait-ms", type=int, default=5, help="consumer fetch.wait.max.ms (latency)")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--replication-factor", type=int, default=3)
    parser.add_argument(
        "--inter-broker",
        choices=PROTOCOLS,
        default="PLAINTEXT",
        help="the listener replication and controller requests use (default PLAINTEXT)",
    )
    parser.add_argument("--keep-data", action="store_true", help="keep the temp dir (broker logs, certificates)")
    args = parser.parse_args()
    print(
        "%d records of %d bytes per produce run (linger.ms %d, batch.size %d); latency %.0f records/s for "
        "%.0f s, acks=all, linger.ms %d; topics %d partitions RF %d min.insync.replicas 2; inter-broker %s"
        % (
            args.records,
            VALUE_SIZE,
            args.linger_ms,
            args.batch_size,
            args.rate,
            args.seconds,
            args.latency_linger_ms,
            args.partitions,
            args.replication_factor,
            args.inter_broker,
        )
    )
    target = SecureKafkaZkTarget(args.keep_data, args.inter_broker)
    print("starting kafka-zk (PLAINTEXT + SASL_SSL listeners) ...")
    target.start()
    try:
        runs, notes = bench(target, args)
    finally:
        target.stop()
    print()
    report(runs, args)
    for note in notes:
        print("note: " + note)
    print(
        "CPU s/M rec: user+system seconds of the three brokers (client: of this process, librdkafka's threads "
        "included) per million records, the median over runs; windows: produce() to the end of flush(), assign to "
        "the last record, the latency run's measured seconds"
    )


if __name__ == "__main__":
    main()
