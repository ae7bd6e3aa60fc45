"""kafka-console-producer and kafka-console-consumer: line reading, formatting, options, and runs on fake brokers."""

import io

import pytest

from kafka_zk.client.consumer import ConsumerRecord
from kafka_zk.tools import console_consumer, console_producer
from kafka_zk.tools.command_line import UsageError, run_tool
from tests.client_fake_broker import fake  # noqa: F401  (fixture)



def run_producer(argv, stdin):
    out, err = io.StringIO(), io.StringIO()
    parser = console_producer.build_parser()
    code = run_tool(parser, lambda args, o, e: console_producer.run(args, o, e, stdin=io.BytesIO(stdin)),
                    argv, out, err)
    return code, out.getvalue(), err.getvalue()


def run_consumer(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(console_consumer.build_parser(), console_consumer.run, argv, out, err)
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
    code, _, err = run_producer(["--bootstrap-server", fake.bootstrap, "--topic", "t", "--property", "parse.key=true",
                                 "--property", "key.separator=:", "--compression-codec", "--request-required-acks",
                                 "all"], b"k1:v1\nk2:v2\nk1:v3\n")
    assert (code, err) == (0, "")
    records = fake.records("t", 0) + fake.records("t", 1)
    assert sorted((r.key, r.value) for r in records) == [(b"k1", b"v1"), (b"k1", b"v3"), (b"k2", b"v2")]
    acks = {body["acks"] for _, key, _, body in fake.requests if key == 0}
    assert acks == {-1}


def test_producer_rejects_a_line_without_key(fake):
    code, _, err = run_producer(["--bootstrap-server", fake.bootstrap, "--topic", "t",
                                 "--property", "parse.key=true"], b"k\tv\nno key here\n")
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
    values = dict(topic="t", partition=1, offset=5, timestamp=1000, timestamp_type="CreateTime", key=b"k",
                  value=b"v", headers=[("a", b"1"), ("b", None)])
    values.update(fields)
    return ConsumerRecord(**values)


def test_formatter_columns():
    fmt = console_consumer.MessageFormatter
    assert fmt({}).format(_record()) == b"v\n"
    assert fmt({"print.key": "true"}).format(_record(key=None)) == b"null\tv\n"
    everything = fmt({"print.timestamp": "true", "print.partition": "true", "print.offset": "true",
                      "print.headers": "true", "print.key": "true", "key.separator": "|"})
    assert everything.format(_record()) == b"CreateTime:1000|Partition:1|Offset:5|a:1,b:null|k|v\n"
    assert fmt({"print.headers": "true"}).format(_record(headers=[])) == b"NO_HEADERS\tv\n"
    assert fmt({"print.key": "true", "print.value": "false"}).format(_record()) == b"k\n"


@pytest.mark.parametrize("argv, message", [
    (["--topic", "t"], '"[bootstrap-server]"'),
    (["--bootstrap-server", "h:1"], "Exactly one of whitelist/topic is required."),
    (["--bootstrap-server", "h:1", "--whitelist", "x", "--partition", "0"], "The topic is required when partition"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--offset", "5"], "The partition is required when offset"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--offset", "5", "--from-beginning"],
     "from-beginning and offset cannot be specified together"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--offset", "-3"], "non-negative long"),
])
def test_consumer_option_checks(argv, message):
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        console_consumer.check_args(console_consumer.build_parser().parse_args(argv))


def _produce(fake, partition, values, start=0):
    from kafka_zk.record.records import encode_batch
    fake.logs[("t", partition)].append(encode_batch([(None, v, [], 1000) for v in values], base_offset=start))


def test_consumer_reads_all_partitions_from_beginning_until_timeout(fake):
    _produce(fake, 0, [b"a", b"b"])
    _produce(fake, 1, [b"c"])
    code, out, err = run_consumer(["--bootstrap-server", fake.bootstrap, "--topic", "t", "--from-beginning",
                                   "--timeout-ms", "300", "--property", "print.partition=true"])
    assert code == 0
    assert sorted(out.splitlines()) == ["Partition:0\ta", "Partition:0\tb", "Partition:1\tc"]
    assert err.endswith("Processed a total of 3 messages\n")


def test_consumer_max_messages_and_offsets(fake):
    _produce(fake, 0, [b"a", b"b", b"c", b"d"])
    code, out, err = run_consumer(["--bootstrap-server", fake.bootstrap, "--topic", "t", "--partition", "0",
                                   "--offset", "1", "--max-messages", "2", "--property", "print.offset=true"])
    assert (code, out) == (0, "Offset:1\tb\nOffset:2\tc\n")
    assert err == "Processed a total of 2 messages\n"
    code, out, err = run_consumer(["--bootstrap-server", fake.bootstrap, "--topic", "t", "--partition", "0",
                                   "--timeout-ms", "200"])
    assert (code, out) == (0, "")  # latest: nothing new arrives
    assert err.endswith("Processed a total of 0 messages\n")


def test_consumer_from_beginning_conflicts_with_reset_property():
    args = console_consumer.build_parser().parse_args(
        ["--bootstrap-server", "h:1", "--topic", "t", "--from-beginning", "--consumer-property",
         "auto.offset.reset=latest"])
    with pytest.raises(UsageError, match="conflict"):
        console_consumer.consumer_settings(args)
