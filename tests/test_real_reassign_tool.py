"""kafka-reassign-partitions.sh against a real 3-broker cluster: every mode, bad input, and a throttled move
whose rate is measured on the new replica's log."""

import json
import threading
import time

import pytest
from kazoo.client import KazooClient

from kafka_zk.client.zk_admin import ZkAdmin
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import log_bytes, start_cluster, wait_for
from tests.raw_wire import create_led_topic, metadata, partition_leaders, produce
from tests.test_real_tools import tool

THROTTLE = 1_000_000
TOOL = "kafka-reassign-partitions.sh"


@pytest.fixture(scope="module")
def env(tmp_path_factory, zookeeper_server):
    # Small replica fetches keep the throttle's granularity fine; short waits keep the test quick.
    overrides = {
        "replica.fetch.max.bytes": "65536",
        "replica.fetch.wait.max.ms": "200",
        "replica.fetch.backoff.ms": "200",
        "replica.lag.time.max.ms": "10000",
    }
    cluster = start_cluster(tmp_path_factory.mktemp("cluster"), zookeeper_server, overrides=overrides)
    zk = KazooClient(hosts=cluster.zk_connect)
    zk.start(10)
    try:
        ids = [0, 1, 2]
        for broker in cluster.brokers:
            wait_for(
                lambda b=broker: sorted(n["node_id"] for n in metadata(b.bootstrap, [])["brokers"]) == ids,
                30,
                message="every broker to see every broker",
            )
        yield cluster, zk, tmp_path_factory.mktemp("files")
    finally:
        zk.stop()
        zk.close()
        cluster.stop()


def write(directory, name, content):
    path = directory / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def reassignment(topic, moves):
    return {"version": 1, "partitions": [{"topic": topic, "partition": p, "replicas": r} for p, r in moves.items()]}


def znode_json(zk, path):
    found = zk.exists(path)
    return json.loads(zk.get(path)[0]) if found else None


def config_of(zk, entity):
    data = znode_json(zk, "/config/" + entity)
    return data["config"] if data else {}


def assignment(zk, topic):
    return {int(p): r for p, r in znode_json(zk, "/brokers/topics/" + topic)["partitions"].items()}


def lines(result):
    return result.stdout.splitlines()


def one_line_error(result, expected):
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert expected in result.stderr.splitlines()[0], result.stderr
    return result.stderr


@pytest.mark.timeout(240)
def test_generate_execute_verify_list_and_bad_input(env):
    cluster, zk, files = env
    bootstrap, zk_connect = cluster.brokers[0].bootstrap, cluster.zk_connect
    create_led_topic(cluster.brokers[0].bootstrap, "moves", {0: [0, 1], 1: [1, 2]})

    topics_file = write(files, "topics.json", {"topics": [{"topic": "moves"}], "version": 1})
    current_json = (
        '{"version":1,"partitions":['
        '{"topic":"moves","partition":0,"replicas":[0,1],"log_dirs":["any","any"]},'
        '{"topic":"moves","partition":1,"replicas":[1,2],"log_dirs":["any","any"]}]}'
    )
    for connect in (["--zookeeper", zk_connect], ["--bootstrap-server", bootstrap]):
        generated = tool(
            TOOL, *connect, "--generate", "--topics-to-move-json-file", topics_file, "--broker-list", "0,2"
        )
        assert generated.returncode == 0, generated.stderr
        out = lines(generated)
        assert out[:3] == ["Current partition replica assignment", current_json, ""]
        assert out[3] == "Proposed partition reassignment configuration"
        proposed = json.loads(out[4])
        assert [(p["topic"], p["partition"], p["log_dirs"]) for p in proposed["partitions"]] == [
            ("moves", 0, ["any", "any"]),
            ("moves", 1, ["any", "any"]),
        ]
        assert all(sorted(p["replicas"]) == [0, 2] for p in proposed["partitions"])

    # --execute through ZooKeeper writes Kafka's znode; --verify follows it to completion.
    move_file = write(files, "move.json", reassignment("moves", {0: [2, 1]}))
    executed = tool(TOOL, "--zookeeper", zk_connect, "--execute", "--reassignment-json-file", move_file)
    assert executed.returncode == 0, executed.stderr
    assert lines(executed) == [
        "Current partition replica assignment",
        "",
        '{"version":1,"partitions":[{"topic":"moves","partition":0,"replicas":[0,1],"log_dirs":["any","any"]}]}',
        "",
        "Save this to use as the --reassignment-json-file option during rollback",
        "Successfully started partition reassignment for moves-0",
    ]

    def verified():
        result = tool(TOOL, "--zookeeper", zk_connect, "--verify", "--reassignment-json-file", move_file)
        assert result.returncode == 0, result.stderr
        return lines(result)[1] == "Reassignment of partition moves-0 completed successfully" and lines(result)

    assert (
        wait_for(verified, 60, interval=0.5, message="moves-0 to complete")[0] == "Status of partition reassignment: "
    )
    assert assignment(zk, "moves")[0] == [2, 1]

    # --execute through a broker uses AlterPartitionReassignments; --list shows nothing once it is done.
    back_file = write(files, "back.json", reassignment("moves", {1: [0, 2]}))
    executed = tool(TOOL, "--bootstrap-server", bootstrap, "--execute", "--reassignment-json-file", back_file)
    assert executed.returncode == 0, executed.stderr
    assert lines(executed)[-1] == "Successfully started partition reassignment for moves-1"
    wait_for(
        lambda: (
            lines(tool(TOOL, "--bootstrap-server", bootstrap, "--verify", "--reassignment-json-file", back_file))[1:]
            == ["Reassignment of partition moves-1 completed successfully"]
        ),
        60,
        interval=0.5,
        message="moves-1 to complete",
    )
    assert assignment(zk, "moves")[1] == [0, 2]
    listed = tool(TOOL, "--bootstrap-server", bootstrap, "--list")
    assert (listed.returncode, listed.stdout) == (0, "No partition reassignments found.\n")

    # Bad input: one line, exit code 1.
    malformed = write(files, "malformed.json", '{"version":1,"partitions":[')
    one_line_error(
        tool(TOOL, "--zookeeper", zk_connect, "--execute", "--reassignment-json-file", malformed),
        "Unable to parse the reassignment-json file",
    )
    one_line_error(
        tool(
            TOOL,
            "--bootstrap-server",
            bootstrap,
            "--execute",
            "--reassignment-json-file",
            write(files, "badbroker.json", reassignment("moves", {0: [2, 7]})),
        ),
        "Unknown broker id 7",
    )
    one_line_error(
        tool(
            TOOL,
            "--zookeeper",
            zk_connect,
            "--execute",
            "--reassignment-json-file",
            write(files, "badbroker.json", reassignment("moves", {0: [2, 7]})),
        ),
        "The proposed assignment contains non-existent brokerIDs: 7",
    )
    one_line_error(
        tool(
            TOOL,
            "--zookeeper",
            zk_connect,
            "--execute",
            "--reassignment-json-file",
            write(files, "notopic.json", reassignment("nope", {0: [1]})),
        ),
        "The proposed assignment contains non-existent partitions: nope-0",
    )
    one_line_error(
        tool(
            TOOL,
            "--zookeeper",
            zk_connect,
            "--execute",
            "--reassignment-json-file",
            write(files, "dup.json", reassignment("moves", {0: [1, 1]})),
        ),
        "Partition replica lists may not contain duplicate entries: moves-0 contains multiple entries for 1",
    )
    one_line_error(
        tool(
            TOOL,
            "--zookeeper",
            zk_connect,
            "--generate",
            "--topics-to-move-json-file",
            topics_file,
            "--broker-list",
            "0,0",
        ),
        "Broker list contains duplicate entries: 0",
    )
    one_line_error(
        tool(TOOL, "--zookeeper", zk_connect, "--cancel", "--reassignment-json-file", move_file),
        'Option "[zookeeper]" can\'t be used with action "[cancel]"',
    )
    one_line_error(
        tool(TOOL, "--zookeeper", zk_connect, "--reassignment-json-file", move_file),
        "Command must include exactly one action",
    )
    one_line_error(
        tool(TOOL, "--zookeeper", zk_connect, "--generate", "--broker-list", "0"),
        'Missing required argument "[topics-to-move-json-file]"',
    )
    one_line_error(tool(TOOL, "--execute", "--reassignment-json-file", move_file), "Please specify --bootstrap-server")
    one_line_error(
        tool(TOOL, "--zookeeper", zk_connect, "--execute", "--reassignment-json-file", move_file, "--throttle", "fast"),
        "Cannot parse argument 'fast' of option throttle",
    )
    assert tool(TOOL).returncode == 1
    one_line_error(
        tool(
            TOOL,
            "--bootstrap-server",
            bootstrap,
            "--generate",
            "--broker-list",
            "0,1",
            "--topics-to-move-json-file",
            write(files, "missing.json", {"topics": [{"topic": "nope"}]}),
        ),
        "Topic nope not found.",
    )
    one_line_error(
        tool(
            TOOL,
            "--zookeeper",
            zk_connect,
            "--generate",
            "--broker-list",
            "0,1",
            "--topics-to-move-json-file",
            malformed,
        ),
        "The input string is not a valid JSON",
    )
    both = tool(
        TOOL,
        "--bootstrap-server",
        bootstrap,
        "--zookeeper",
        zk_connect,
        "--generate",
        "--topics-to-move-json-file",
        topics_file,
        "--broker-list",
        "0,1,2",
    )
    assert both.returncode == 0 and lines(both)[:2] == [
        "Warning: ignoring deprecated --zookeeper option because --bootstrap-server was specified.  The "
        "--zookeeper option will be removed in a future version of Kafka.",
        "Current partition replica assignment",
    ]


class BackgroundProducer(threading.Thread):
    """Keeps appending small batches to a partition's current leader and counts any error. As a client does,
    it answers a leader change (NOT_LEADER_FOR_PARTITION, from metadata that was behind) by looking the leader
    up again and resending: that is a retry, not an error."""

    RETRIABLE = {Errors.NOT_LEADER_FOR_PARTITION, Errors.LEADER_NOT_AVAILABLE}

    def __init__(self, cluster, topic):
        super().__init__(daemon=True)
        self.cluster, self.topic = cluster, topic
        self.stopping = threading.Event()
        self.sent = 0
        self.retries = 0
        self.errors = []

    def run(self):
        while not self.stopping.is_set():
            leader = partition_leaders(self.cluster.brokers[0].bootstrap, self.topic).get(0)
            code = produce(
                self.cluster.broker(leader).bootstrap,
                self.topic,
                0,
                encode_batch([(None, b"live-%d" % self.sent + b"x" * 1000)]),
                acks=-1,
            )[0]
            if code == Errors.NONE:
                self.sent += 1
            elif code in self.RETRIABLE:
                self.retries += 1
            else:
                self.errors.append(Errors.from_code(code).name)
            self.stopping.wait(0.05)


@pytest.mark.timeout(240)
def test_throttled_reassignment_moves_data_at_the_throttle_rate(env):
    cluster, zk, files = env
    bootstrap, zk_connect = cluster.brokers[0].bootstrap, cluster.zk_connect
    create_led_topic(cluster.brokers[0].bootstrap, "throttled", {0: [0, 1]})
    leader = cluster.broker(partition_leaders(bootstrap, "throttled")[0])
    chunk = [(None, bytes([i % 251]) * 10_000) for i in range(50)]  # 500 kB per batch
    wait_for(
        lambda: produce(leader.bootstrap, "throttled", 0, encode_batch(chunk))[0] == Errors.NONE,
        message="the leader to accept",
    )
    for _ in range(13):  # ~7 MB in all
        assert produce(leader.bootstrap, "throttled", 0, encode_batch(chunk), acks=-1)[0] == Errors.NONE
    producer = BackgroundProducer(cluster, "throttled")
    producer.start()

    move_file = write(files, "throttled.json", reassignment("throttled", {0: [2, 1]}))
    started = time.monotonic()
    executed = tool(
        TOOL, "--zookeeper", zk_connect, "--execute", "--reassignment-json-file", move_file, "--throttle", THROTTLE
    )
    assert executed.returncode == 0, executed.stderr
    out = lines(executed)
    assert out[5:] == [
        "Warning: You must run --verify periodically, until the reassignment completes, to ensure "
        "the throttle is removed.",
        "The inter-broker throttle limit was set to %d B/s" % THROTTLE,
        "Successfully started partition reassignment for throttled-0",
    ]
    assert znode_json(zk, "/admin/reassign_partitions") in (
        {"version": 1, "partitions": [{"topic": "throttled", "partition": 0, "replicas": [2, 1]}]},
        None,
    )
    topic_config = config_of(zk, "topics/throttled")
    assert topic_config["leader.replication.throttled.replicas"] == "0:0,0:1"
    assert topic_config["follower.replication.throttled.replicas"] == "0:2"
    for broker_id in (0, 1, 2):
        assert config_of(zk, "brokers/%d" % broker_id) == {
            "leader.replication.throttled.rate": str(THROTTLE),
            "follower.replication.throttled.rate": str(THROTTLE),
        }

    # Watch the new replica's log grow until the reassignment completes.
    new_replica = cluster.broker(2)
    samples = []
    in_progress_seen = []
    while zk.exists("/admin/reassign_partitions") is not None or assignment(zk, "throttled")[0] != [2, 1]:
        samples.append((time.monotonic(), log_bytes(new_replica, "throttled", 0)))
        if not in_progress_seen and samples[-1][1] > 1_000_000:
            listed = tool(TOOL, "--bootstrap-server", bootstrap, "--list")
            verified = tool(TOOL, "--zookeeper", zk_connect, "--verify", "--reassignment-json-file", move_file)
            blocked = [
                tool(TOOL, *connect, "--execute", "--reassignment-json-file", move_file)
                for connect in (["--zookeeper", zk_connect], ["--bootstrap-server", bootstrap])
            ]
            in_progress_seen = [listed.stdout, verified.stdout, blocked]
        assert time.monotonic() - started < 120, "the throttled move took too long"
        time.sleep(0.05)
    samples.append((time.monotonic(), log_bytes(new_replica, "throttled", 0)))
    producer.stopping.set()
    producer.join(30)

    final = samples[-1][1]
    t10 = next(t for t, size in samples if size >= 0.1 * final)
    t90 = next(t for t, size in samples if size >= 0.9 * final)
    rate = 0.8 * final / (t90 - t10)
    print(
        "\nthrottled move: %d bytes on the new replica, %.2f s from 10%% to 90%%, rate %.0f B/s "
        "(throttle %d B/s, %.1f%%); background producer sent %d batches (%d retried after a leader change)"
        % (final, t90 - t10, rate, THROTTLE, 100.0 * rate / THROTTLE, producer.sent, producer.retries)
    )
    assert final > 6_000_000
    assert 0.8 * THROTTLE <= rate <= 1.2 * THROTTLE
    assert producer.errors == [] and producer.sent > 0

    listed, verified, blocked = in_progress_seen
    for result in blocked:  # a second --execute while one runs is refused with Kafka's message
        one_line_error(result, "Cannot execute because there is an existing partition assignment.  Use --additional")
    assert listed.startswith("Current partition reassignments:\nthrottled-0: replicas: ")
    assert "adding: 2. removing: 0." in listed
    assert "Reassignment of partition throttled-0 is still in progress" in verified
    assert "Throttle was removed." not in verified

    done = tool(TOOL, "--zookeeper", zk_connect, "--verify", "--reassignment-json-file", move_file)
    assert lines(done) == [
        "Status of partition reassignment: ",
        "Reassignment of partition throttled-0 completed successfully",
        "Throttle was removed.",
    ]
    assert "leader.replication.throttled.replicas" not in config_of(zk, "topics/throttled")
    assert "follower.replication.throttled.replicas" not in config_of(zk, "topics/throttled")
    for broker_id in (0, 1, 2):
        assert config_of(zk, "brokers/%d" % broker_id) == {}


@pytest.mark.timeout(180)
def test_cancel_stops_a_throttled_reassignment(env):
    cluster, zk, files = env
    bootstrap, zk_connect = cluster.brokers[0].bootstrap, cluster.zk_connect
    create_led_topic(cluster.brokers[0].bootstrap, "cancelme", {0: [0, 1]})
    leader = cluster.broker(partition_leaders(bootstrap, "cancelme")[0])
    chunk = [(None, b"c" * 10_000) for _ in range(50)]
    wait_for(
        lambda: produce(leader.bootstrap, "cancelme", 0, encode_batch(chunk))[0] == Errors.NONE,
        message="the leader to accept",
    )
    move_file = write(files, "cancel.json", reassignment("cancelme", {0: [2, 1]}))
    executed = tool(
        TOOL, "--zookeeper", zk_connect, "--execute", "--reassignment-json-file", move_file, "--throttle", 20_000
    )
    assert executed.returncode == 0, executed.stderr
    wait_for(
        lambda: "cancelme-0" in tool(TOOL, "--bootstrap-server", bootstrap, "--list").stdout,
        message="the reassignment to be listed",
    )
    cancelled = tool(TOOL, "--bootstrap-server", bootstrap, "--cancel", "--reassignment-json-file", move_file)
    assert cancelled.returncode == 0, cancelled.stderr
    assert lines(cancelled) == [
        "Successfully cancelled partition reassignment for: cancelme-0",
        "None of the specified partition moves are active.",
        "Clearing broker-level throttles on brokers 0,1,2",
        "Clearing topic-level throttles on topic cancelme",
    ]
    wait_for(lambda: assignment(zk, "cancelme")[0] == [0, 1], message="the original replicas back")
    assert "leader.replication.throttled.replicas" not in config_of(zk, "topics/cancelme")
    again = tool(TOOL, "--bootstrap-server", bootstrap, "--cancel", "--reassignment-json-file", move_file)
    assert lines(again)[:2] == [
        "None of the specified partition reassignments are active.",
        "None of the specified partition moves are active.",
    ]


def fill(cluster, topic, batches):
    leader = cluster.broker(partition_leaders(cluster.brokers[0].bootstrap, topic)[0])
    chunk = [(None, bytes([i % 251]) * 10_000) for i in range(50)]  # 500 kB per batch
    wait_for(
        lambda: produce(leader.bootstrap, topic, 0, encode_batch(chunk))[0] == Errors.NONE,
        message="the leader to accept",
    )
    for _ in range(batches - 1):
        assert produce(leader.bootstrap, topic, 0, encode_batch(chunk), acks=-1)[0] == Errors.NONE


def applied_changes(broker, topic=None):
    """(topic config changes of ``topic``, broker config changes) the broker has logged applying so far."""
    text = broker.log_file.read_text(errors="replace")
    return (
        text.count("applied config changes of topics ['%s']" % topic) if topic else 0,
        text.count("applied dynamic broker config changes"),
    )


def measured_move_rate(cluster, zk, topic, target, new_broker):
    """Bytes/second of the new replica's log between 10% and 90% of its final size."""
    samples = []
    started = time.monotonic()
    while zk.exists("/admin/reassign_partitions") is not None or assignment(zk, topic)[0] != target:
        samples.append((time.monotonic(), log_bytes(cluster.broker(new_broker), topic, 0)))
        assert time.monotonic() - started < 120, "the throttled move took too long"
        time.sleep(0.05)
    samples.append((time.monotonic(), log_bytes(cluster.broker(new_broker), topic, 0)))
    final = samples[-1][1]
    t10 = next(t for t, size in samples if size >= 0.1 * final)
    t90 = next(t for t, size in samples if size >= 0.9 * final)
    return final, 0.8 * final / (t90 - t10)


# Kafka's replication quota divides the bytes of its live windows by the time since the oldest one began, so a
# quota that moved data a few seconds ago allows a burst of up to limit x that age. Each case below therefore
# throttles a broker whose quota on that side has not moved data in this module yet: broker 2 leads, broker 0 follows.
@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    "side, initial, target, new_broker, replicas",
    [
        ("leader", [2, 0], [2, 1], 1, "0:2,0:0"),
        ("follower", [1, 2], [0, 2], 0, "0:0"),
    ],
)
def test_each_side_of_the_throttle_limits_the_move_on_its_own(env, side, initial, target, new_broker, replicas):
    """Only one side's rate and replica list are set (as kafka-configs would): that side alone holds the move
    to its rate, whether it acts on the leader's answers or on the follower's requests."""
    cluster, zk, files = env
    topic, limit = "one-side-" + side, 600_000
    create_led_topic(cluster.brokers[0].bootstrap, topic, {0: initial})
    wait_for(
        lambda: partition_leaders(cluster.brokers[0].bootstrap, topic)[0] == initial[0], message="the preferred leader"
    )
    fill(cluster, topic, 8)  # ~4 MB
    admin = ZkAdmin(cluster.zk_connect)
    try:
        before = [applied_changes(broker) for broker in cluster.brokers]
        admin.change_topic_config(topic, {side + ".replication.throttled.replicas": replicas})
        for broker_id in (0, 1, 2):
            admin.change_broker_config(broker_id, {side + ".replication.throttled.rate": str(limit)})
        # Unthrottled, these 4 MB would move in well under a second: start once every broker has the configs.
        for broker, (topics_before, brokers_before) in zip(cluster.brokers, before):
            wait_for(
                lambda b=broker: (
                    applied_changes(b, topic)[0] > topics_before and applied_changes(b)[1] > brokers_before
                ),
                message="broker %d to apply the throttle" % broker.broker_id,
            )
        move_file = write(files, topic + ".json", reassignment(topic, {0: target}))
        executed = tool(TOOL, "--zookeeper", cluster.zk_connect, "--execute", "--reassignment-json-file", move_file)
        assert executed.returncode == 0, executed.stderr
        final, rate = measured_move_rate(cluster, zk, topic, target, new_broker)
        print(
            "\n%s-side throttle only: %d bytes moved at %.0f B/s (limit %d B/s, %.1f%%)"
            % (side, final, rate, limit, 100.0 * rate / limit)
        )
        assert final > 3_500_000
        assert 0.8 * limit <= rate <= 1.2 * limit
    finally:
        admin.change_topic_config(topic, {})
        for broker_id in (0, 1, 2):
            admin.change_broker_config(broker_id, {})
        admin.close()
