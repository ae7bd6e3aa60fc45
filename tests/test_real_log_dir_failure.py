"""Log directory failure (KIP-112) on real brokers: a full or read-only disk (a small tmpfs mounted over a log
dir) takes the dir offline, leadership moves to the in-sync replicas, and no acknowledged record is lost."""

import errno
import json
import os
import signal
import subprocess
import time

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafka_zk.client.admin import AdminClient
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.ports import free_port
from tests.raw_wire import create_topic, metadata
from tests.replication_support import ROOT, fast_overrides, metadata_partition
from tests.zk_support import create_chroot

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")

TOPIC = "disk"
VALUE = b"x" * 900
OFFLINE_LINE = "Shutdown broker because all log dirs in"


class Tmpfs:
    """Small tmpfs filesystems mounted over log dirs, always unmounted at the end."""

    def __init__(self):
        self.mounts = []

    def mount(self, path, size_mb=40):
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % size_mb, "tmpfs", str(path)], check=True)
        self.mounts.append(path)

    @staticmethod
    def fill(path):
        """Take every free byte of the filesystem at ``path``: the next write there fails with ENOSPC."""
        stats = os.statvfs(path)
        fd = os.open(os.path.join(path, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            size = max(0, stats.f_bavail * stats.f_frsize - (1 << 20))
            os.posix_fallocate(fd, 0, size)
            while True:  # the last megabyte (the broker may be writing meanwhile)
                size += os.pwrite(fd, b"\0" * 4096, size)
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
        finally:
            os.close(fd)

    def read_only(self, path):
        """Make ``path`` read-only for every new open (a read-only bind mount over it: files a process holds open
        stay writable, as a remount would refuse while they are)."""
        subprocess.run(["mount", "--bind", str(path), str(path)], check=True)
        self.mounts.append(path)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)

    def close(self):
        for path in reversed(self.mounts):
            subprocess.run(["umount", "-l", str(path)], check=False)


@pytest.fixture
def tmpfs():
    mounts = Tmpfs()
    yield mounts
    mounts.close()


@pytest.fixture
def clusters():
    """Clusters made by a test; stopped (frozen brokers resumed first) before the tmpfs mounts go."""
    made = []
    yield made
    for cluster in made:
        for broker in cluster.brokers:
            broker.signal(signal.SIGCONT)
        cluster.stop()


def start(clusters, tmp_path, zookeeper_server, tmpfs, dirs="{folder}/logs", mounted="logs", **overrides):
    """Three brokers with ``log.dirs`` = ``dirs``; each broker's ``mounted`` dir is a 40 MB tmpfs."""
    overrides = dict(TEST_DEFAULTS, **fast_overrides(log_dirs=dirs, min_insync_replicas=2, **overrides))
    cluster = LocalCluster(
        tmp_path / "cluster",
        brokers=3,
        zk_connect=create_chroot(zookeeper_server),
        broker_ports=[free_port() for _ in range(3)],
        overrides=overrides,
    )
    for broker in cluster.brokers:
        tmpfs.mount(broker.folder / mounted)
    clusters.append(cluster)
    cluster.start(timeout=60)
    ids = [0, 1, 2]
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: sorted(n["node_id"] for n in metadata(b.bootstrap, [])["brokers"]) == ids,
            30,
            message="broker %d to see every broker" % broker.broker_id,
        )
    return cluster


def controller_of(cluster):
    zk = KazooClient(hosts=cluster.zk_connect)
    zk.start(10)
    try:
        return json.loads(zk.get("/controller")[0])["brokerid"]
    except NoNodeError:
        return None
    finally:
        zk.stop()
        zk.close()


def create(cluster, assignments):
    bootstrap = cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, TOPIC, assignments=assignments) == Errors.NONE
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: all(
                len((metadata_partition(b.bootstrap, TOPIC, p) or {}).get("isr_nodes", [])) == 3 for p in assignments
            ),
            30,
            message="every ISR full at %s" % broker.bootstrap,
        )


def leader_and_isr(cluster, partition, broker):
    return leader_and_isr_of(cluster, TOPIC, broker, partition)


def leader_and_isr_of(cluster, topic, broker, partition=0):
    """(leader, sorted ISR) of a partition as ``broker``'s metadata has it."""
    found = metadata_partition(cluster.broker(broker).bootstrap, topic, partition)
    return (found["leader_id"], sorted(found["isr_nodes"])) if found is not None else (None, [])


class IdempotentWriter:
    """A confluent-kafka idempotent acks=all producer of unique values; remembers what was acknowledged."""

    def __init__(self, bootstrap):
        from confluent_kafka import Producer

        self.errors = []
        self.acked = []
        self.producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 5,
                "message.timeout.ms": 60000,
                "error_cb": lambda error: self.errors.append(error),
            }
        )
        self.sent = 0

    def _delivered(self, error, message):
        if error is not None:
            self.errors.append(error)
        else:
            self.acked.append(message.value())

    def write(self, count, partition=0):
        for _ in range(count):
            value = b"%08d-" % self.sent + VALUE
            self.sent += 1
            while True:
                try:
                    self.producer.produce(TOPIC, value=value, partition=partition, on_delivery=self._delivered)
                    break
                except BufferError:
                    self.producer.poll(0.05)
            self.producer.poll(0)

    def finish(self):
        assert self.producer.flush(90) == 0
        fatal = [error for error in self.errors if not hasattr(error, "retriable") or not error.retriable()]
        assert not [e for e in fatal if getattr(e, "fatal", lambda: False)()], self.errors
        delivery_failures = [
            error for error in self.errors if hasattr(error, "code") and error.code() not in (-195, -187, -185)
        ]  # transport, all brokers down, timed out in queue: reported while a broker goes away
        return delivery_failures


def read_back(bootstrap, partition, expected):
    """Every value of the partition (from a fresh consumer), once ``expected`` records are there."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([TopicPartition(TOPIC, partition, 0)])
    values = []
    deadline = time.monotonic() + 60
    try:
        while len(values) < expected and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.append(message.value())
    finally:
        consumer.close()
    return values


def assert_every_acked_record_once(writer, bootstrap, partition=0):
    values = read_back(bootstrap, partition, len(writer.acked))
    assert len(values) == len(set(values)), "duplicates in the log"
    assert set(writer.acked) <= set(values), "%d acknowledged records missing" % len(set(writer.acked) - set(values))
    assert len(writer.acked) == writer.sent


def wait_exit(broker, timeout=60):
    wait_for(lambda: not broker.is_running(), timeout, message="broker %d to shut down" % broker.broker_id)


def broker_log(broker):
    """server.log and controller.log (the controller's lines go there, as in Kafka's log4j.properties)."""
    return "".join(broker.log_path(name).read_text(errors="replace") for name in ("server.log", "controller.log"))


def leader_leaves(cluster, failing, survivor, fault, partition=0):
    """Apply ``fault`` while an idempotent producer writes; return the writer and the seconds until the
    partition's leader was another broker (as the survivor's metadata says)."""
    writer = IdempotentWriter(cluster.brokers[survivor].bootstrap)
    writer.write(300, partition)
    assert writer.producer.flush(30) == 0 and len(writer.acked) == 300
    fault()
    started = time.monotonic()
    writer.write(1500, partition)
    wait_for(
        lambda: leader_and_isr(cluster, partition, survivor)[0] not in (failing, None, -1),
        30,
        message="leadership of %s-%d to leave broker %d" % (TOPIC, partition, failing),
    )
    moved_after = time.monotonic() - started
    print("leadership of %s-%d left broker %d %.2f s after the fault" % (TOPIC, partition, failing, moved_after))
    writer.write(500, partition)
    return writer, moved_after


@pytest.mark.timeout(240)
@pytest.mark.parametrize("controller_fails", [False, True], ids=["controller-elsewhere", "controller-fails"])
def test_a_full_disk_moves_leadership_and_the_broker_with_no_dir_left_shuts_down(
    tmp_path, zookeeper_server, tmpfs, clusters, controller_fails
):
    cluster = start(clusters, tmp_path, zookeeper_server, tmpfs)
    failing, survivor, third = roles(cluster, controller_fails)
    others = [survivor, third]
    create(cluster, {0: [failing] + others})
    broker = cluster.broker(failing)

    writer, moved_after = leader_leaves(cluster, failing, survivor, lambda: tmpfs.fill(broker.folder / "logs"))

    assert moved_after < 5.0, "leadership left the broker %.1f s after the disk filled" % moved_after
    assert writer.finish() == []
    wait_exit(broker)
    assert broker._process is None or broker._process.returncode in (None, 1)
    text = broker_log(broker)
    assert OFFLINE_LINE in text and "No space left on device" in text
    assert "Traceback" not in text
    leader, isr = leader_and_isr(cluster, 0, survivor)
    assert leader in others and failing not in isr
    assert_every_acked_record_once(writer, cluster.brokers[survivor].bootstrap)


def roles(cluster, controller_fails):
    """(failing, survivor, third): the failing broker is the controller or not; the survivor is never it."""
    controller = controller_of(cluster)
    failing = controller if controller_fails else (controller + 1) % 3
    survivor, third = [b for b in ((controller + 1) % 3, (controller + 2) % 3, controller) if b != failing][:2]
    return failing, survivor, third


@pytest.mark.timeout(240)
@pytest.mark.parametrize("controller_fails", [False, True], ids=["controller-elsewhere", "controller-fails"])
def test_a_read_only_leader_dir_moves_leadership(tmp_path, zookeeper_server, tmpfs, clusters, controller_fails):
    # The segment the leader appends to stays open and writable; the next file it writes (a high watermark
    # checkpoint, each second here) fails with EROFS.
    cluster = start(clusters, tmp_path, zookeeper_server, tmpfs, replica_high_watermark_checkpoint_interval_ms=1000)
    failing, survivor, third = roles(cluster, controller_fails)
    create(cluster, {0: [failing, survivor, third]})
    broker = cluster.broker(failing)

    writer, moved_after = leader_leaves(cluster, failing, survivor, lambda: tmpfs.read_only(broker.folder / "logs"))

    assert moved_after < 5.0
    assert writer.finish() == []
    wait_exit(broker)
    text = broker_log(broker)
    assert OFFLINE_LINE in text and "Read-only file system" in text
    assert_every_acked_record_once(writer, cluster.brokers[survivor].bootstrap)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("controller_fails", [False, True], ids=["controller-elsewhere", "controller-fails"])
def test_a_follower_with_a_full_disk_leaves_the_isr_and_the_leader_keeps_serving(
    tmp_path, zookeeper_server, tmpfs, clusters, controller_fails
):
    cluster = start(clusters, tmp_path, zookeeper_server, tmpfs)
    failing, leader, third = roles(cluster, controller_fails)
    create(cluster, {0: [leader, failing, third]})
    writer = IdempotentWriter(cluster.brokers[leader].bootstrap)
    writer.write(300)
    assert writer.producer.flush(30) == 0
    tmpfs.fill(cluster.broker(failing).folder / "logs")
    started = time.monotonic()
    writer.write(2000)
    wait_for(
        lambda: failing not in leader_and_isr(cluster, 0, third)[1], 20, message="broker %d to leave the ISR" % failing
    )
    print("broker %d left the ISR %.2f s after its disk filled" % (failing, time.monotonic() - started))
    writer.write(300)
    assert writer.finish() == []
    assert leader_and_isr(cluster, 0, third) == (leader, sorted([leader, third]))
    wait_exit(cluster.broker(failing))
    assert OFFLINE_LINE in broker_log(cluster.broker(failing))
    assert_every_acked_record_once(writer, cluster.brokers[leader].bootstrap)


def dir_of_partitions(admin, broker_id):
    """{partition of TOPIC: log dir} on one broker, and {log dir: error}, from DescribeLogDirs."""
    placed, errors = {}, {}
    for log_dir, info in admin.describe_log_dirs([broker_id])[broker_id].items():
        errors[log_dir] = info.error
        for (name, partition), _ in info.replicas.items():
            if name == TOPIC:
                placed[partition] = log_dir
    return placed, errors


def log_dirs_tool(bootstrap, broker_id):
    result = subprocess.run(
        [
            str(ROOT / "scripts" / "kafka-log-dirs.sh"),
            "--describe",
            "--bootstrap-server",
            bootstrap,
            "--broker-list",
            str(broker_id),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(300)
def test_with_two_dirs_the_broker_serves_from_the_healthy_one_across_a_new_controller_and_a_restart(
    tmp_path, zookeeper_server, tmpfs, clusters
):
    cluster = start(clusters, tmp_path, zookeeper_server, tmpfs, dirs="{folder}/logs,{folder}/small", mounted="small")
    controller = controller_of(cluster)
    failing = (controller + 1) % 3
    third = (controller + 2) % 3
    broker = cluster.broker(failing)
    small = str(broker.folder / "small")
    create(cluster, {0: [failing, third, controller], 1: [failing, third, controller]})
    admin = AdminClient(cluster.brokers[controller].bootstrap)
    try:
        placed, _ = dir_of_partitions(admin, failing)
        assert sorted(placed.values()) == sorted([str(broker.folder / "logs"), small])
        lost = next(p for p, d in placed.items() if d == small)
        kept = 1 - lost

        writer, moved_after = leader_leaves(cluster, failing, controller, lambda: tmpfs.fill(small), lost)
        assert moved_after < 5.0
        assert writer.finish() == []
        assert_every_acked_record_once(writer, cluster.brokers[controller].bootstrap, lost)

        # The broker stays up and keeps leading the partition in its healthy dir.
        assert broker.is_running()
        assert leader_and_isr(cluster, kept, controller) == (failing, [0, 1, 2])
        kept_writer = IdempotentWriter(broker.bootstrap)
        kept_writer.write(200, kept)
        assert kept_writer.finish() == [] and len(kept_writer.acked) == 200
        leader, isr = leader_and_isr(cluster, lost, controller)
        assert leader != failing and failing not in isr
        assert metadata_partition(cluster.brokers[controller].bootstrap, TOPIC, lost)["offline_replicas"] == [failing]

        # What operators see: DescribeLogDirs and kafka-log-dirs.sh, the znodes and the controller's log.
        _, errors = dir_of_partitions(admin, failing)
        assert errors == {str(broker.folder / "logs"): Errors.NONE, small: Errors.KAFKA_STORAGE_ERROR}
        described = {
            entry["logDir"]: entry for entry in log_dirs_tool(broker.bootstrap, failing)["brokers"][0]["logDirs"]
        }
        assert described[small]["error"] == "org.apache.kafka.common.errors.KafkaStorageException"
        assert described[small]["partitions"] == []
        assert described[str(broker.folder / "logs")]["error"] is None
        zk = KazooClient(hosts=cluster.zk_connect)
        zk.start(10)
        try:
            wait_for(
                lambda: zk.get_children("/log_dir_event_notification") == [],
                10,
                message="the log dir event to be handled",
            )
        finally:
            zk.stop()
            zk.close()
        controller_log = broker_log(cluster.broker(controller))
        assert "log dir failure on brokers [%d]" % failing in controller_log
        assert "mark replicas %s-%d on broker %d as offline" % (TOPIC, lost, failing) in controller_log

        # A freshly elected controller learns of the offline replica from the broker's LeaderAndIsr answers: the
        # preferred leader (the failing broker) is not elected for the partition it cannot serve.
        cluster.broker(controller).kill()
        wait_for(lambda: controller_of(cluster) not in (controller, None), 30, message="a new controller")
        survivors = AdminClient(cluster.brokers[third].bootstrap)
        try:
            wait_for(lambda: leader_and_isr(cluster, kept, third)[0] == failing, 30, message="kept partition led")
            results = survivors.elect_leaders(0, [(TOPIC, lost)])
            assert results[(TOPIC, lost)][0] == Errors.PREFERRED_LEADER_NOT_AVAILABLE
            assert leader_and_isr(cluster, lost, third)[0] == third
        finally:
            survivors.close()

        # Restarted with the small dir unwritable, the broker has it offline from the start and serves the rest.
        broker.stop()
        tmpfs.read_only(small)
        broker.start()
        wait_for(lambda: failing in leader_and_isr(cluster, kept, third)[1], 30, message="back in the kept ISR")
        text = broker_log(broker)
        assert "Failed to create or validate data directory %s" % small in text
        restarted = AdminClient(broker.bootstrap)
        try:
            _, errors = dir_of_partitions(restarted, failing)
            assert errors[small] == Errors.KAFKA_STORAGE_ERROR
            assert failing not in leader_and_isr(cluster, lost, third)[1]
            # A replica reassigned onto the broker is new (LeaderAndIsr is_new): it is created in the healthy dir.
            assert create_topic(broker.bootstrap, "moved", assignments={0: [third]}) == Errors.NONE
            wait_for(lambda: leader_and_isr_of(cluster, "moved", third) == (third, [third]), 30, message="moved led")
            moved = restarted.alter_partition_reassignments({("moved", 0): [third, failing]})
            assert moved[("moved", 0)][0] == Errors.NONE
            wait_for(
                lambda: leader_and_isr_of(cluster, "moved", third) == (third, sorted([failing, third])),
                30,
                message="the reassigned replica in the ISR",
            )
            placed = restarted.describe_log_dirs([failing], [("moved", 0)])[failing]
            assert ("moved", 0) in placed[str(broker.folder / "logs")].replicas
        finally:
            restarted.close()
    finally:
        admin.close()
