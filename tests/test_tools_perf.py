"""The perf tools' pure parts: java.util.Random, Java formatting, throttler, stats, config checks, output lines."""

import io

import pytest

from kafka_zk.tools import client_config, consumer_perf, producer_perf
from kafka_zk.tools.perf_support import (
    JavaRandom,
    ProducerStats,
    SimpleDateFormat,
    ThroughputThrottler,
    java_fixed,
    java_split,
    uppercase_payload,
)


def test_java_random_matches_javas_documented_sequence():
    # new Random(0).nextInt() and new Random(42).nextInt() in Java.
    zero = JavaRandom(0)
    assert [zero._next(32), zero._next(32)] == [-1155484576, -723955400]
    assert JavaRandom(42)._next(32) == -1170105035
    # nextInt(bound): power-of-two bounds take the high bits, others reject the biased tail.
    # Random(0)'s first next(31) is its first nextInt() shifted right by one as unsigned (3139482720 >>> 1).
    assert JavaRandom(0).next_int(16) == (16 * (3139482720 >> 1)) >> 31
    assert JavaRandom(0).next_int(26) == (3139482720 >> 1) % 26
    draws = JavaRandom(1)
    assert all(0 <= draws.next_int(26) < 26 for _ in range(10000))
    assert all(0 <= draws.next_int(16) < 16 for _ in range(1000))


def test_uppercase_payload_is_the_first_draws_of_random_zero():
    payload = uppercase_payload(100)
    random = JavaRandom(0)
    assert payload == bytes(random.next_int(26) + 65 for _ in range(100))
    assert set(payload) <= set(range(65, 91)) and len(set(payload)) > 10


def test_java_fixed_rounds_half_up_and_spells_nan_and_infinity():
    assert java_fixed(0.125, 2) == "0.13"
    assert java_fixed(2.5, 0) == "3"
    assert java_fixed(1234.5, 1) == "1234.5"
    assert java_fixed(5000.0, 6) == "5000.000000"
    assert java_fixed(float("nan"), 2) == "NaN"
    assert java_fixed(float("inf"), 4) == "Infinity"


def test_java_split_drops_trailing_empty_strings():
    assert java_split("a,b,,c,,", ",") == ["a", "b", "", "c"]
    assert java_split("a\nb\n", "\n") == ["a", "b"]
    assert java_split(",a", ",") == ["", "a"]
    assert java_split("a1b22c", r"\d+") == ["a", "b", "c"]
    assert java_split("acks=all", "=") == ["acks", "all"]
    assert java_split("acks=", "=") == ["acks"]


def test_simple_date_format_patterns():
    fmt = SimpleDateFormat("yyyy-MM-dd HH:mm:ss:SSS")
    text = fmt.format(1700000000123)
    assert len(text) == 23 and text.endswith(":123") and text[:4] == "2023"
    assert SimpleDateFormat("'at' yy/M/d").format(1700000000123).startswith("at 23/11/1")
    with pytest.raises(ValueError, match="Illegal pattern character 'q'"):
        SimpleDateFormat("qq")


class FakeTime:
    def __init__(self):
        self.ns = 0
        self.waits = []

    def nanotime(self):
        return self.ns

    def wait(self, seconds):
        self.waits.append(seconds)
        self.ns += int(seconds * 1e9) // 2 + 1  # wakes early: the throttler waits again for the rest


def test_throttler_sleeps_off_its_deficit_in_two_ms_steps():
    clock = FakeTime()
    throttler = ThroughputThrottler(1000, 0, clock.nanotime, clock.wait)
    assert not throttler.should_throttle(5, 0)  # no time elapsed yet
    assert not throttler.should_throttle(1, 1000)
    assert throttler.should_throttle(1001, 1000)
    throttler.throttle()  # 1 ms deficit: below 2 ms, no sleep
    assert clock.waits == []
    throttler.throttle()
    assert clock.waits and clock.ns >= 2000000 and throttler.sleep_deficit_ns == 0
    assert not ThroughputThrottler(-1, 0, clock.nanotime, clock.wait).should_throttle(10**9, 1)


def test_producer_stats_window_total_and_sampled_percentiles():
    now = [1000]
    out = io.StringIO()
    stats = ProducerStats(10, 5000, lambda: now[0], out)
    assert stats.sampling == 1 and len(stats.latencies) == 11
    for i in range(10):
        now[0] += 100
        stats.record(i, i + 1, 100, now[0])
    assert stats.percentiles(0.5, 0.95, 0.99, 0.999) == [6, 10, 10, 10]
    assert out.getvalue() == ""  # 1000 ms < the 5 s window
    assert stats.total_line() == (
        "10 records sent, 10.000000 records/sec (0.00 MB/sec), 5.50 ms avg latency, "
        "10.00 ms max latency, 6 ms 50th, 10 ms 95th, 10 ms 99th, 10 ms 99.9th."
    )
    now[0] += 4000
    stats.record(10, 3, 1024 * 1024, now[0])
    assert (
        out.getvalue() == "11 records sent, 2.2 records/sec (0.20 MB/sec), 5.3 ms avg latency, 10.0 ms max latency.\n"
    )
    big = ProducerStats(1200000, 5000, lambda: 0, io.StringIO())
    assert big.sampling == 2 and len(big.latencies) == 600001


def test_client_config_checks_and_translates_like_kafka():
    warnings = []
    settings = client_config.translate(
        {"acks": "all", "linger.ms": "5", "buffer.memory": "33554432", "key.serializer": "x", "foo.bar": "1"},
        client_config.PRODUCER_CONFIGS,
        warnings.append,
    )
    assert settings == {"acks": "all", "linger.ms": "5", "queue.buffering.max.kbytes": "32768"}
    assert warnings == ["WARN The configuration 'foo.bar' was supplied but isn't a known config."]
    with pytest.raises(client_config.ClientConfigError, match="Not a number of type LONG"):
        client_config.translate({"linger.ms": "soon"}, client_config.PRODUCER_CONFIGS, warnings.append)
    with pytest.raises(client_config.ClientConfigError, match="Value must be at least 1"):
        client_config.translate(
            {"max.in.flight.requests.per.connection": "0"}, client_config.PRODUCER_CONFIGS, warnings.append
        )
    with pytest.raises(client_config.ClientConfigError, match="Unknown compression name: brotli"):
        client_config.translate({"compression.type": "brotli"}, client_config.PRODUCER_CONFIGS, warnings.append)
    with pytest.raises(client_config.ClientConfigError, match='Missing required configuration "bootstrap.servers"'):
        client_config.require_bootstrap({})


def run_producer(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = producer_perf.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_producer_perf_option_errors_and_help():
    code, out, err = run_producer()
    assert code == 0 and "This tool is used to verify the producer performance." in out
    code, out, err = run_producer("--topic", "t", "--num-records", "x1", "--throughput", "1", "--record-size", "1")
    assert code == 1 and err.splitlines()[-1] == (
        "producer-performance: error: argument --num-records: could not convert 'x1' to Long (For input string: \"x1\")"
    )
    code, out, err = run_producer(
        "--topic",
        "t",
        "--num-records",
        "0",
        "--throughput",
        "1",
        "--record-size",
        "1",
        "--producer-props",
        "bootstrap.servers=h:1",
    )
    assert code == 1 and err.strip() == 'Exception in thread "main" java.lang.ArithmeticException: / by zero'
    code, out, err = run_producer(
        "--topic", "t", "--num-records", "5", "--throughput", "1", "--record-size", "1", "--producer-props", "acks=1"
    )
    assert code == 1 and err.strip().endswith(
        'Missing required configuration "bootstrap.servers" which has no default value.'
    )


def test_producer_perf_sends_one_payload_and_counts_every_completion():
    sent = []

    class FakeProducer:
        def __init__(self, settings):
            self.settings = settings
            self.pending = []

        def produce(self, topic, value, on_delivery):
            sent.append((topic, value))
            self.pending.append(on_delivery)

        def poll(self, timeout):
            while self.pending:
                self.pending.pop(0)(None, None)

        def flush(self):
            self.poll(0)

    parser = producer_perf.build_parser()
    args = parser.parse_args(
        [
            "--topic",
            "t",
            "--num-records",
            "50",
            "--throughput",
            "-1",
            "--record-size",
            "20",
            "--producer-props",
            "bootstrap.servers=h:1",
            "linger.ms=7",
        ]
    )
    out = io.StringIO()
    assert producer_perf.run(args, out, io.StringIO(), producer_factory=FakeProducer) == 0
    assert sent == [("t", uppercase_payload(20))] * 50
    assert out.getvalue().startswith("50 records sent, ")


def test_consumer_perf_lines_and_option_errors():
    fmt = SimpleDateFormat("HH:mm:ss:SSS")
    result = consumer_perf.ConsumeResult()
    result.messages, result.bytes, result.join_time_ms = 20000, 2000000, 100
    line = consumer_perf.summary_line(0, 2000, result, fmt)
    assert line.split(", ")[2:] == ["1.9073", "0.9537", "20000", "10000.0000", "100", "1900", "1.0039", "10526.3158"]
    progress = consumer_perf.progress_line(0, 2000000, 1000000, 20000, 10000, 0, 1000, fmt, 0)
    assert progress.split(", ")[1:] == [
        "0",
        "1.9073",
        "0.9537",
        "20000",
        "10000.0000",
        "0",
        "1000",
        "0.9537",
        "10000.0000",
    ]
    err = io.StringIO()
    assert (
        consumer_perf.main(
            ["--bootstrap-server", "h:1", "--topic", "t", "--messages", "5", "--reporting-interval", "0"],
            io.StringIO(),
            err,
        )
        == 1
    )
    assert err.getvalue().strip() == (
        'Exception in thread "main" java.lang.IllegalArgumentException: Reporting interval must be greater than 0.'
    )
    err = io.StringIO()
    assert (
        consumer_perf.main(
            ["--bootstrap-server", "h:1", "--topic", "t", "--messages", "5", "--bogus"], io.StringIO(), err
        )
        == 1
    )
    assert "bogus is not a recognized option" in err.getvalue()
