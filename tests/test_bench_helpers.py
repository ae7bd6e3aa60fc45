"""The pure helpers of the CPU-per-record bench (bench/targets.py, bench/cpu_per_record.py) and the broker's
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
