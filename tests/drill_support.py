"""Network drills on hosts of their own: a cluster of 3 ZooKeeper servers and 3 brokers, each in a network namespace,
its state read from ZooKeeper and the brokers, and one drill = a fresh RF-3 topic under the delivery checker's load
while a fault is in force, then healed, converged and checked.

Timeouts are Kafka's own settings made short, so a drill takes seconds: the bounds drills assert are formulas of them.
"""

import json
import time
import uuid
from contextlib import contextmanager

from kazoo.exceptions import KazooException, NoNodeError

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.tools.local_cluster import LocalCluster
from kafka_zk.zk.acl_client import SecuredKazooClient
from kafka_zk.zk.session import PROMPT_RECONNECT
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.delivery_checker import DeliveryChecker
from tests.hosts_support import fresh_hosts
from tests.raw_wire import metadata

BROKERS = 3
PARTITIONS = 3
ZOOKEEPERS = 3
TICK_MS = 500  # ZooKeeper's tick: sessions from 2 to 20 ticks (1 s .. 10 s)
ELECTION_RETRY_MAX_MS = 2000
# A connection that lived through a cut resumes within this of the heal (the kernel's backoff reaches 120 s).
TCP_RTO_MAX_MS = 2000
SESSION_TIMEOUT_MS = 6000
REPLICA_LAG_MS = 4000
CONTROLLER_SOCKET_TIMEOUT_MS = 3000
BROKER_SETTINGS = dict(
    TEST_DEFAULTS,
    **{
        "zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "replica.lag.time.max.ms": str(REPLICA_LAG_MS),
        "controller.socket.timeout.ms": str(CONTROLLER_SOCKET_TIMEOUT_MS),
        # replica.socket.timeout.ms stays Kafka's 30 s: under a drill's load a full fetch answer can take seconds, and
        # a shorter timeout has followers drop and reopen their connections over and over, falling out of every ISR.
        "replica.fetch.wait.max.ms": "200",
        "replica.fetch.backoff.ms": "200",
        "controlled.shutdown.max.retries": "1",
        "offsets.topic.replication.factor": "3",
        "transaction.state.log.replication.factor": "3",
        "transaction.state.log.min.isr": "2",
    },
)
TOPIC_CONFIGS = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}
# librdkafka logs each refused or timed-out connection during a fault; errors only.
PRODUCER_CONFIG = {"log_level": 3, "request.timeout.ms": 5000}


class DrillCluster:
    """The drills' cluster: hosts zk-1..3 and broker-0..2, and a ZooKeeper client on ``client``."""

    def __init__(self, directory):
        self.hosts = fresh_hosts(tcp_rto_max_ms=TCP_RTO_MAX_MS)
        self.cluster = LocalCluster(
            directory,
            brokers=BROKERS,
            zookeepers=ZOOKEEPERS,
            hosts=self.hosts,
            overrides=BROKER_SETTINGS,
            zookeeper_config={
                "tickTime": str(TICK_MS),
                # A server cut off retries its election with a doubling wait, up to 60 s by default: healed after a
                # drill's fault, it would stay out of the quorum for most of a minute.
                "fastleader.maxNotificationInterval": str(ELECTION_RETRY_MAX_MS),
            },
        )
        self.zk = None
        try:
            self.cluster.start(timeout=90)
            # As a broker's: a cut-off server costs a third of the session, and the reads retried while the client
            # reconnects go again within a second of it (kazoo's own backoff doubles up to an hour).
            self.zk = SecuredKazooClient(
                self.cluster.zk_connect,
                timeout=10,
                connection_retry=PROMPT_RECONNECT,
                command_retry=dict(PROMPT_RECONNECT, deadline=60),
            )
            self.zk.start(15)
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.zk is not None:
            self.zk.stop()
            self.zk.close()
        self.cluster.kill()  # the brokers and ZooKeeper servers, then every namespace, link and rule

    @property
    def bootstrap(self):
        return self.cluster.bootstrap_servers

    def host_of(self, broker_id):
        return "broker-%d" % broker_id

    # -- ZooKeeper's view (None while it cannot be read) -------------------------------------------------

    def _json(self, path):
        try:
            return json.loads(self.zk.get(path)[0].decode())
        except NoNodeError:
            return None
        except KazooException:
            return None

    def controller(self):
        found = self._json("/controller")
        return None if found is None else found["brokerid"]

    def controller_epoch(self):
        try:
            return int(self.zk.get("/controller_epoch")[0])
        except KazooException:
            return None

    def registered(self):
        try:
            return sorted(int(child) for child in self.zk.get_children("/brokers/ids"))
        except KazooException:
            return None

    def state(self, topic, partition):
        return self._json("/brokers/topics/%s/partitions/%d/state" % (topic, partition))

    def wait_controller(self, other_than=None, timeout=30):
        def found():
            broker_id = self.controller()
            return (broker_id,) if broker_id is not None and broker_id != other_than else None

        return wait_for(found, timeout, message="a controller other than %s" % other_than)[0]

    def change_controller(self, timeout=30):
        """A controller election (what an operator's `delete /controller` starts): returns (old, new) ids once a
        controller with a newer epoch holds /controller and every broker still serves."""
        old, epoch = self.wait_controller(), self.controller_epoch()
        self.zk.delete("/controller")
        wait_for(
            lambda: (self.controller_epoch() or 0) > epoch and self.controller() is not None,
            timeout,
            message="a controller elected after epoch %d" % epoch,
        )
        return old, self.controller()

    def log_lines_about(self, name, last=40):
        """The latest lines of each broker's server.log and state-change.log naming ``name`` (a topic-partition): a
        failed drill's evidence."""
        found = []
        for broker in self.cluster.brokers:
            for log_name in ("server.log", "state-change.log"):
                try:
                    with open(broker.log_path(log_name), errors="replace") as handle:
                        lines = [line.rstrip() for line in handle if name in line]
                except OSError as error:
                    lines = ["(cannot read: %s)" % error]
                found.append("broker %d %s:\n  %s" % (broker.broker_id, log_name, "\n  ".join(lines[-last:])))
        return "\n".join(found)

    def wait_state(self, topic, partition, predicate, timeout, message):
        def check():
            state = self.state(topic, partition)
            return state if state is not None and predicate(state) else None

        return wait_for(
            check, timeout, message="%s-%d %s (last %s)" % (topic, partition, message, self.state(topic, partition))
        )

    def wait_converged(self, topic, timeout=60):
        """Every broker registered, every partition led with its full ISR in ZooKeeper and in the metadata every
        broker serves: the cluster needed no restart to heal."""
        wait_for(lambda: self.registered() == list(range(BROKERS)), timeout, message="every broker registered")
        for partition in range(PARTITIONS):
            try:
                self.wait_state(
                    topic,
                    partition,
                    lambda s: s["leader"] >= 0 and len(s["isr"]) == BROKERS,
                    timeout,
                    "led with its full ISR",
                )
            except AssertionError as failure:
                raise AssertionError("%s\n%s" % (failure, self.log_lines_about("%s-%d" % (topic, partition)))) from None
        for broker in self.cluster.brokers:
            wait_for(
                lambda b=broker: self._full_in_metadata(b.bootstrap, topic),
                timeout,
                message="broker %d's metadata to show %s whole" % (broker.broker_id, topic),
            )

    def _full_in_metadata(self, bootstrap, topic):
        try:
            topics = metadata(bootstrap, [topic])["topics"]
        except (KafkaClientError, OSError):
            return False
        partitions = topics[0]["partitions"] if topics and topics[0]["error_code"] == 0 else []
        return len(partitions) == PARTITIONS and all(
            p["leader_id"] >= 0 and len(p["isr_nodes"]) == BROKERS for p in partitions
        )

    def leaders(self, topic):
        return {p: self.state(topic, p)["leader"] for p in range(PARTITIONS)}

    def replica_sizes(self, topic):
        """{partition: {broker id: bytes of its replica}} from DescribeLogDirs on every broker."""
        sizes = {p: {} for p in range(PARTITIONS)}
        wanted = [(topic, p) for p in range(PARTITIONS)]
        with AdminClient(self.bootstrap) as admin:
            for broker_id, log_dirs in admin.describe_log_dirs(range(BROKERS), wanted).items():
                for info in log_dirs.values():
                    for (name, partition), replica in info.replicas.items():
                        if name == topic:
                            sizes[partition][broker_id] = replica.size
        return sizes

    def new_topic(self, prefix, assignments=None):
        """A topic of PARTITIONS partitions and BROKERS replicas (``assignments`` {partition: replicas} pins them),
        min.insync.replicas=2, unclean election off; returns once it is led with full ISRs everywhere."""
        topic = "%s-%s" % (prefix, uuid.uuid4().hex[:6])
        new = NewTopic(topic, PARTITIONS, BROKERS, replica_assignment=assignments, configs=TOPIC_CONFIGS)
        with AdminClient(self.bootstrap) as admin:
            error, message = admin.create_topics([new])[topic]
        assert error == 0, (error, message)
        self.wait_converged(topic)
        return topic


AFTER_CONTROLLER_CHANGE = "after-controller-change"


def controller_for(drills, variant):
    """The controller a drill starts with: a freshly elected one for the ``after-controller-change`` variant."""
    if variant == AFTER_CONTROLLER_CHANGE:
        drills.change_controller()
    return drills.wait_controller()


class Drill:
    """One drill: its topic, its checker, and the moments the fault began and was healed."""

    def __init__(self, drills, name, assignments=None):
        self.drills = drills
        self.name = name
        self.topic = drills.new_topic("drill", assignments)
        self.checker = DeliveryChecker(
            drills.bootstrap, self.topic, PARTITIONS, rate=150, name=name, producer_config=PRODUCER_CONFIG
        )
        self.fault_at = self.healed_at = None
        self.report = None
        self.intervals = []

    def interval(self, what, seconds, bound, formula):
        """A measured span of the fault held against the bound Kafka's settings give it: printed, then asserted."""
        self.intervals.append("  %s: %.1f s (bound %.1f s = %s)" % (what, seconds, bound, formula))
        print(self.intervals[-1])
        assert seconds < bound, self.intervals[-1]

    @contextmanager
    def fault(self):
        """The fault's span: the body applies it and waits on its effects; leaving heals every link, whatever
        happened."""
        self.fault_at = time.monotonic()
        try:
            yield
        finally:
            self.drills.hosts.heal()
            self.healed_at = time.monotonic()

    def finish(self, timeout=90):
        """Converge, write some more, stop, read everything back and assert nothing acked was lost, duplicated or
        reordered, and every replica of every partition holds the same bytes."""
        try:
            self.drills.wait_converged(self.topic, timeout)
            self.checker.wait_acked(100, timeout=timeout)
        finally:
            self.checker.stop(timeout=120)
        self.report = self.checker.verify(timeout=60, window=(self.fault_at, self.healed_at))
        print(self.report.line())
        self.report.assert_intact()
        wait_for(
            lambda: all(
                len(set(sizes.values())) == 1 and len(sizes) == BROKERS
                for sizes in self.drills.replica_sizes(self.topic).values()
            ),
            60,
            message="every replica of %s to hold the same bytes (%s)"
            % (self.topic, self.drills.replica_sizes(self.topic)),
        )
        return self.report


@contextmanager
def drill(drills, name, assignments=None):
    """A Drill whose checker runs from the start until finish() (or the end of a failed drill), from a whole
    ensemble: the fault of the drill before may have left a server still rejoining its quorum."""
    wait_for(
        lambda: set(drills.cluster.zookeeper.modes().values()) <= {"leader", "follower"},
        120,  # a kernel without tcp_rto_max_ms may keep a connection that lived through the cut silent for a minute
        message=lambda: "every ZooKeeper server to serve in the quorum (%s)" % drills.cluster.zookeeper.modes(),
    )
    run = Drill(drills, name, assignments)
    run.checker.start()
    try:
        run.checker.wait_acked(100, timeout=30)
        yield run
    finally:
        if run.report is None:
            run.checker.stop(timeout=30)
