"""kafka-console-producer and kafka-console-consumer: line reading, formatting, options, and runs on fake brokers."""

import io

import pytest

from kafka_zk.client.consumer import Consumer, ConsumerRecord
from kafka_zk.client.group_consumer import GroupConsumer
from kafka_zk.tools import console_consumer, console_producer
from kafka_zk.tools.command_line import UsageError, run_tool
from tests.client_fake_broker import fake  # noqa: F401  (fixture)


def run_producer(argv, stdin):
    out, err = io.StringIO(), io.StringIO()
    parser = console_producer.build_parser()
    code = run_tool(
        parser, lambda args, o, e: console_producer.run(args, o, e, stdin=io.BytesIO(stdin)), argv, out, err
    )
    return code, out.getvalue(), err.getvalue()


class AssignAllMember(Consumer):
    """Stands in for a group member on the fake broker (which has no coordinator): subscribing assigns every
    partition of the topics, as a one-member group would."""

    def __init__(
        self,
        bootstrap_servers,
        group_id,
        enable_auto_commit=False,
        auto_commit_interval_ms=5000,
        session_timeout_ms=10000,
        heartbeat_interval_ms=3000,
        rebalance_timeout_ms=300000,
        metadata_max_age_ms=300000,
        **options,
    ):
        super().__init__(bootstrap_servers, **options)
        self.group_id = group_id
        self.fetcher = self

    def subscribe(self, topics):
        self.assign([(t, p) for t in topics for p in self.cluster.partitions_for(t)])

    def subscribe_pattern(self, select):
        self.cluster.metadata(None)
        self.subscribe(select(sorted(self.cluster.topics)))


def run_consumer(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(
        console_consumer.build_parser(),
        lambda args, o, e: console_consumer.run(args, o, e, group_consumer_factory=AssignAllMember),
        argv,
        out,
        err,
    )
    return code, out.getvalue(), err.getvalue()


# -- producer ------------------------------------------------------------------------------------


def test_line_reader_keys():
    reader = console_producer.LineReader({"parse.key": "true", "key.separator": "::"})
    assert reader.record(b"k::v::w") == (b"k", b"v::w")
    assert reader.record(b"k::") == (b"k", b"")
    with pytest.raises(console_producer.LineParseError, match="No key found on line 3: nokey"):
        reader.record(b"nokey")
    assert console_producer.LineReader({}).record(b"a\tb") == (None, b"a\tb")
    lenient = console_producer.LineReader({"parse.key": "true", "ignore.error": "true"})
    assert lenient.record(b"nokey") == (None, b"nokey")


def test_lines_split_across_chunks():
    class Trickle(io.RawIOBase):
        def __init__(self, pieces):
            self.pieces = list(pieces)

        def read(self, size=-1):
            return self.pieces.pop(0) if self.pieces else b""

    batches = list(console_producer.iter_line_batches(Trickle([b"a\r\nb", b"c\n\nd", b""])))
    assert batches == [[b"a"], [b"bc", b""], [b"d"]]


def test_producer_run_sends_every_line(fake):
    code, _, err = run_producer(
        [
            "--bootstrap-server",
            fake.bootstrap,
            "--topic",
            "t",
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
            "--compression-codec",
            "--request-required-acks",
            "all",
        ],
        b"k1:v1\nk2:v2\nk1:v3\n",
    )
    assert (code, err) == (0, "")
    records = fake.records("t", 0) + fake.records("t", 1)
    assert sorted((r.key, r.value) for r in records) == [(b"k1", b"v1"), (b"k1", b"v3"), (b"k2", b"v2")]
    acks = {body["acks"] for _, key, _, body in fake.requests if key == 0}
    assert acks == {-1}


def test_producer_rejects_a_line_without_key(fake):
    code, _, err = run_producer(
        ["--bootstrap-server", fake.bootstrap, "--topic", "t", "--property", "parse.key=true"], b"k\tv\nno key here\n"
    )
    assert code == 1 and "No key found on line 2" in err


def test_producer_requires_topic_and_server():
    assert run_producer(["--bootstrap-server", "h:1"], b"")[2].startswith('Missing required argument "[topic]"')
    assert run_producer(["--topic", "t"], b"")[2].startswith('Missing required argument "[bootstrap-server]"')


def test_producer_settings_precedence(tmp_path):
    config = tmp_path / "producer.properties"
    config.write_text("acks=0\nlinger.ms=7\n")
    parser = console_producer.build_parser()
    args = parser.parse_args(["--topic", "t", "--producer.config", str(config), "--producer-property", "acks=all"])
    settings = console_producer.producer_settings(args)
    assert (settings["acks"], settings["linger_ms"], settings["compression"]) == ("all", 7, "none")
    args = parser.parse_args(["--topic", "t", "--producer-property", "acks=all", "--request-required-acks", "1"])
    assert console_producer.producer_settings(args)["acks"] == "1"


# -- consumer ------------------------------------------------------------------------------------


def _record(**fields):
    values = dict(
        topic="t",
        partition=1,
        offset=5,
        timestamp=1000,
        timestamp_type="CreateTime",
        key=b"k",
        value=b"v",
        headers=[("a", b"1"), ("b", None)],
    )
    values.update(fields)
    return ConsumerRecord(**values)


def test_formatter_columns():
    fmt = console_consumer.MessageFormatter
    assert fmt({}).format(_record()) == b"v\n"
    assert fmt({"print.key": "true"}).format(_record(key=None)) == b"null\tv\n"
    everything = fmt(
        {
            "print.timestamp": "true",
            "print.partition": "true",
            "print.offset": "true",
            "print.headers": "true",
            "print.key": "true",
            "key.separator": "|",
        }
    )
    assert everything.format(_record()) == b"CreateTime:1000|Partition:1|Offset:5|a:1,b:null|k|v\n"
    assert fmt({"print.headers": "true"}).format(_record(headers=[])) == b"NO_HEADERS\tv\n"
    assert fmt({"print.key": "true", "print.value": "false"}).format(_record()) == b"k\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--topic", "t"], '"[bootstrap-server]"'),
        (["--bootstrap-server", "h:1"], "Exactly one of whitelist/topic is required."),
        (["--bootstrap-server", "h:1", "--whitelist", "x", "--partition", "0"], "The topic is required when partition"),
        (["--bootstrap-server", "h:1", "--topic", "t", "--offset", "5"], "The partition is required when offset"),
        (
            ["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--offset", "5", "--from-beginning"],
            "from-beginning and offset cannot be specified together",
        ),
        (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--offset", "-3"], "non-negative long"),
    ],
)
def test_consumer_option_checks(argv, message):
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        console_consumer.check_args(console_consumer.build_parser().parse_args(argv))


def _produce(fake, partition, values, start=0):
    from kafka_zk.record.records import encode_batch

    fake.logs[("t", partition)].append(encode_batch([(None, v, [], 1000) for v in values], base_offset=start))


def test_consumer_reads_all_partitions_from_beginning_until_timeout(fake):
    _produce(fake, 0, [b"a", b"b"])
    _produce(fake, 1, [b"c"])
    code, out, err = run_consumer(
        [
            "--bootstrap-server",
            fake.bootstrap,
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--property",
            "print.partition=true",
        ]
    )
    assert code == 0
    assert sorted(out.splitlines()) == ["Partition:0\ta", "Partition:0\tb", "Partition:1\tc"]
    assert err.endswith("Processed a total of 3 messages\n")


def test_consumer_max_messages_and_offsets(fake):
    _produce(fake, 0, [b"a", b"b", b"c", b"d"])
    code, out, err = run_consumer(
        [
            "--bootstrap-server",
            fake.bootstrap,
            "--topic",
            "t",
            "--partition",
            "0",
            "--offset",
            "1",
            "--max-messages",
            "2",
            "--property",
            "print.offset=true",
        ]
    )
    assert (code, out) == (0, "Offset:1\tb\nOffset:2\tc\n")
    assert err == "Processed a total of 2 messages\n"
    code, out, err = run_consumer(
        ["--bootstrap-server", fake.bootstrap, "--topic", "t", "--partition", "0", "--timeout-ms", "200"]
    )
    assert (code, out) == (0, "")  # latest: nothing new arrives
    assert err.endswith("Processed a total of 0 messages\n")


def test_consumer_from_beginning_conflicts_with_reset_property():
    args = console_consumer.build_parser().parse_args(
        [
            "--bootstrap-server",
            "h:1",
            "--topic",
            "t",
            "--from-beginning",
            "--consumer-property",
            "auto.offset.reset=latest",
        ]
    )
    with pytest.raises(UsageError, match="conflict"):
        console_consumer.consumer_settings(args)


def _args(*argv):
    return console_consumer.build_parser().parse_args(["--bootstrap-server", "h:1", "--topic", "t"] + list(argv))


def test_group_ids_must_agree_and_exclude_partition(tmp_path):
    config = tmp_path / "consumer.properties"
    config.write_text("group.id=from-file\n")
    with pytest.raises(UsageError, match="do not match. Detected group ids: 'g', 'h', 'from-file'"):
        console_consumer.provided_group_ids(
            _args("--group", "g", "--consumer-property", "group.id=h", "--consumer.config", str(config))
        )
    assert console_consumer.provided_group_ids(_args("--group", "g", "--consumer-property", "group.id=g")) == ["g"]
    for extra in (["--group", "g"], ["--consumer-property", "group.id=g"], ["--consumer.config", str(config)]):
        with pytest.raises(UsageError, match="Options group and partition cannot be specified together."):
            console_consumer.provided_group_ids(_args("--partition", "0", *extra))


def test_generated_group_does_not_commit_unless_asked():
    args = _args()
    group, passed, settings = console_consumer.group_settings(args, {})
    assert not passed and settings["enable_auto_commit"] is False
    assert group.startswith("console-consumer-") and 0 <= int(group[len("console-consumer-") :]) < 100000
    _, _, settings = console_consumer.group_settings(args, {"enable.auto.commit": "true"})
    assert settings["enable_auto_commit"] is True
    group, passed, settings = console_consumer.group_settings(_args("--group", "mine"), {})
    assert (group, passed, settings["enable_auto_commit"]) == ("mine", True, True)
    _, _, settings = console_consumer.group_settings(
        _args("--group", "mine"), {"partition.assignment.strategy": "roundrobin", "auto.commit.interval.ms": "100"}
    )
    assert settings["assignors"] == ("roundrobin",) and settings["auto_commit_interval_ms"] == 100


def test_missing_consumer_config_is_one_line_error(tmp_path):
    code, out, err = run_consumer(
        ["--bootstrap-server", "h:1", "--topic", "t", "--consumer.config", str(tmp_path / "absent.properties")]
    )
    assert code == 1 and out == "" and len(err.splitlines()) == 1 and "absent.properties" in err


def test_unprinted_records_are_reported_per_partition(fake):
    _produce(fake, 0, [b"a", b"b", b"c"])
    _produce(fake, 1, [b"d", b"e"])
    consumer = AssignAllMember(fake.bootstrap, "g", auto_offset_reset="earliest")
    consumer.subscribe(["t"])
    out, err, unprinted = io.StringIO(), io.StringIO(), {}
    count = console_consumer.consume(consumer, console_consumer.MessageFormatter({}), out, err, 2, 5000, unprinted)
    consumer.close()
    printed = out.getvalue().splitlines()
    assert count == 2 and len(printed) == 2
    # a reported partition restarts at its first record that was fetched but not printed
    where = {"a": ("t", 0, 0), "b": ("t", 0, 1), "c": ("t", 0, 2), "d": ("t", 1, 0), "e": ("t", 1, 1)}
    assert unprinted
    for tp, offset in unprinted.items():
        assert offset == min(o for v, (t, p, o) in where.items() if (t, p) == tp and v not in printed)


def test_whitelist_member_reads_the_matching_topics(fake):
    fake.create_topic("other", 1)
    _produce(fake, 0, [b"a"])
    code, out, err = run_consumer(
        [
            "--bootstrap-server",
            fake.bootstrap,
            "--whitelist",
            "t|nothing",
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--property",
            "print.partition=true",
        ]
    )
    assert (code, out) == (0, "Partition:0\ta\n")


def test_pattern_subscription_is_matched_again_every_metadata_max_age(fake):
    now = [100.0]
    member = GroupConsumer(fake.bootstrap, "g", metadata_max_age_ms=1000, clock=lambda: now[0])
    try:
        member.subscribe_pattern(lambda names: [n for n in names if n.startswith("new")])
        member._rejoin_needed = False
        member._maybe_match_topics()
        assert member.topics == [] and not member._rejoin_needed
        fake.create_topic("new-one", 2)
        now[0] += 0.5
        member._maybe_match_topics()  # not yet: the last look was half a max age ago
        assert member.topics == []
        now[0] += 0.6
        member._maybe_match_topics()
        assert member.topics == ["new-one"] and member._rejoin_needed
    finally:
        member.close()  # never joined: nothing to commit, no LeaveGroup
