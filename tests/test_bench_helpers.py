"""The pure helpers of the benches (bench/targets.py, bench/cpu_per_record.py, bench/versus_kafka.py) and the broker's
profiling hook (kafka_zk/server/main.py run_reactor), in memory."""

import cProfile
import os
import pstats
import signal
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import cpu_per_record  # noqa: E402
import targets  # noqa: E402
import versus_kafka  # noqa: E402
from targets import percentile, stat_cpu_seconds  # noqa: E402

from kafka_zk.server.main import PROFILE_VARIABLE, run_reactor  # noqa: E402
from tests.ports import free_port  # noqa: E402


def test_stat_cpu_seconds_adds_user_and_system_time_after_a_command_name_with_spaces_and_parentheses():
    fields = ["S", "1", "2", "3", "0", "-1", "4194560", "10", "0", "0", "0", "250", "40", "0", "0"]
    text = "4242 (python3 (kafka) x) " + " ".join(fields) + "\n"
    assert stat_cpu_seconds(text, 100) == 2.9


def test_top_functions_sums_the_brokers_profiles_and_orders_by_own_time(tmp_path):
    def busy(n):
        return sum(i * i for i in range(n))

    paths = []
    for broker in range(2):
        profiler = cProfile.Profile()
        profiler.runcall(busy, 20000)
        path = tmp_path / ("broker-%d.prof" % broker)
        profiler.dump_stats(str(path))
        paths.append(str(path))
    rows = cpu_per_record.top_functions(pstats.Stats(*paths), 3)
    assert len(rows) == 3
    assert [row[0] for row in rows] == sorted((row[0] for row in rows), reverse=True)
    generator = [row for row in rows if "<genexpr>" in row[3]]
    assert generator and generator[0][2] == 2 * 20001  # calls of both profiles summed


def test_request_counts_sum_the_versions_of_each_request():
    text = "\n".join(
        [
            "# HELP kafka_network_requestmetrics_requests_total RequestsPerSec",
            "# TYPE kafka_network_requestmetrics_requests_total counter",
            'kafka_network_requestmetrics_requests_total{request="Produce",version="7"} 5.0',
            'kafka_network_requestmetrics_requests_total{request="Produce",version="8"} 7.0',
            'kafka_network_requestmetrics_requests_total{request="Fetch",version="11"} 3.0',
            "# TYPE kafka_server_other_total counter",
            'kafka_server_other_total{request="Produce"} 100.0',
            "",
        ]
    )
    assert cpu_per_record.request_counts(text) == {"Produce": 12.0, "Fetch": 3.0}


def test_short_path_starts_at_the_package():
    assert cpu_per_record.short_path("/work/x/kafka_zk/log/log.py") == "kafka_zk/log/log.py"
    assert (
        cpu_per_record.short_path("/v/lib/python3.11/site-packages/twisted/internet/tcp.py")
        == "twisted/internet/tcp.py"
    )
    assert cpu_per_record.short_path("~") == "~"


def test_default_matrix_and_chosen_cases():
    cases = cpu_per_record.default_cases()
    assert len(cases) == len(set(cases)) == 12
    assert cpu_per_record.Case(-1, 3, 5, "none") in cases and cpu_per_record.Case(0, 1, 5, "none") in cases

    class Args:
        acks, rf, linger, codec = "1,all", None, "0,20", None

    assert cpu_per_record.chosen_cases(Args) == [
        cpu_per_record.Case(1, 3, 0, "none"),
        cpu_per_record.Case(1, 3, 20, "none"),
        cpu_per_record.Case(-1, 3, 0, "none"),
        cpu_per_record.Case(-1, 3, 20, "none"),
    ]


class StoppingReactor:
    """run() works a little, then returns as the real reactor does once stopped; the profile restarts and stops
    on the signals in between."""

    def __init__(self):
        self.ran = False

    def run(self):
        sum(range(1000))
        os.kill(os.getpid(), signal.SIGUSR2)  # start afresh: what came before is discarded
        self.ran = True
        os.kill(os.getpid(), signal.SIGUSR1)  # stop gathering
        sum(range(1000))


def test_run_reactor_writes_the_brokers_profile_once_the_reactor_stops(tmp_path):
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGUSR1, signal.SIGUSR2)}
    try:
        reactor = StoppingReactor()
        run_reactor(reactor, 7, {PROFILE_VARIABLE: str(tmp_path / "profiles")})
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    assert reactor.ran
    stats = pstats.Stats(str(tmp_path / "profiles" / "broker-7.prof"))
    assert not [key for key in stats.stats if key[2] == "<built-in method builtins.sum>"]


def test_run_reactor_without_the_variable_just_runs():
    class Reactor:
        ran = False

        def run(self):
            self.ran = True

    reactor = Reactor()
    run_reactor(reactor, 1, {})
    assert reactor.ran


def test_percentile_is_the_nearest_rank_of_sorted_values():
    values = list(range(101))
    assert (percentile(values, 0.5), percentile(values, 0.99), percentile(values, 1.0)) == (50, 99, 100)
    assert percentile([7], 0.5) == 7
    assert percentile([], 0.5) != percentile([], 0.5)  # NaN


def test_bench_ports_are_the_test_suites():
    assert targets.free_port is free_port


def test_versus_kafka_median_leaves_out_failed_runs():
    assert versus_kafka.median([3.0, None, 1.0, float("nan"), 2.0]) == 2.0
    assert versus_kafka.median([None]) is None


def test_versus_kafka_ratio_and_goal_check():
    assert versus_kafka.ratio_of(50.0, 100.0) == 0.5
    assert versus_kafka.ratio_of(None, 100.0) is None and versus_kafka.ratio_of(1.0, 0.0) is None
    at_least_half, at_most_a_quarter = (">=", 0.5), ("<=", 0.25)
    assert [versus_kafka.goal_met(ratio, at_least_half) for ratio in (0.5, 0.49, None)] == ["yes", "NO", "-"]
    assert [versus_kafka.goal_met(ratio, at_most_a_quarter) for ratio in (0.25, 0.3)] == ["yes", "NO"]
    assert versus_kafka.goal_met(3.0, None) == "-"
    assert versus_kafka.goal_text(at_least_half) == ">= 0.5" and versus_kafka.goal_text(None) == "-"


def test_versus_kafka_shows_figures_with_the_decimals_their_size_needs():
    assert [versus_kafka.shown(value) for value in (123456.7, 12.345, 0.01234, None)] == [
        "123,457",
        "12.35",
        "0.012",
        "-",
    ]


def test_versus_kafka_summary_rows_give_medians_ratio_and_goal_in_the_order_of_the_runs():
    rate = versus_kafka.Figure("produce", "rec/s", (">=", 1.0))
    p99 = versus_kafka.Figure("p99", "ms", ("<=", 1.0))
    cpu = versus_kafka.Figure("broker CPU", "s/M rec", None)
    runs = {
        "kafka-zk": [{rate: 90.0, p99: 2.0}, {rate: 80.0, p99: 4.0, cpu: 5.0}, {rate: 100.0, p99: 3.0}],
        "kafka": [{rate: 100.0, p99: 6.0, cpu: 10.0}, {rate: 120.0, p99: 6.0}, {rate: 110.0}],
    }
    assert versus_kafka.summary_rows(runs) == [
        ["produce", "rec/s", "90.00", "110", "0.82", ">= 1", "NO"],
        ["p99", "ms", "3.00", "6.00", "0.50", "<= 1", "yes"],
        ["broker CPU", "s/M rec", "5.00", "10.00", "0.50", "-", "-"],
    ]


def test_versus_kafka_reads_consumer_performances_last_line():
    output = (
        "WARNING: some note, without enough commas\n"
        "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
        "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"
        "2026-11-29 08:02:56:463, 2026-11-29 08:02:58:032, 1.9073, 1.2156, 20000, 12746.9726, 1795, -17, -0, -0\n"
    )
    figures = versus_kafka.consumer_perf_figures(output)
    assert figures["nMsg.sec"] == 12746.9726 and figures["data.consumed.in.nMsg"] == 20000
    assert figures["start.time"] == "2026-11-29 08:02:56:463"


def test_versus_kafka_merges_the_runs_of_several_scenarios_run_by_run():
    a, b = versus_kafka.Figure("a", "s", None), versus_kafka.Figure("b", "s", None)
    assert versus_kafka.merge_runs([[{a: 1.0}, {a: 2.0}], [{b: 3.0}]]) == [{a: 1.0, b: 3.0}, {a: 2.0}]


def test_versus_kafka_quick_sizes_give_way_to_options_given():
    quick = versus_kafka.parse_args(["--quick", "--records", "7", "--only", "produce,requests"])
    assert (quick.repeat, quick.records, quick.idle_consumers) == (1, 7, versus_kafka.SIZES["idle_consumers"][1])
    assert quick.only == ["produce", "requests"]
    default = versus_kafka.parse_args([])
    assert (default.repeat, default.failover_partitions, default.latency_rates) == (3, 10000, [1000, 10000])
    assert default.only == list(versus_kafka.SCENARIOS)
