"""Produce throughput to replicated topics on 3 kafka-zk brokers next to librdkafka's 3-broker mock cluster,
including issue 22's acceptance-1 cases (--acceptance)."""

import argparse
import statistics
import sys
from pathlib import Path

TREE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TREE / "bench"))

from targets import (  # noqa: E402
    KafkaZkTarget,
    MockTarget,
    produce_run,
    unique_topic,
    wait_for_high_watermarks,
)

VALUE_SIZE = 100
RUN_TIMEOUT = 300.0
CLIENT_DEFAULT = None  # batch.size left at the client's default (librdkafka: 1,000,000 bytes)
# (acks, replication factor or None for --replication-factor, linger.ms, batch.size); 1,000,000 rather than
# 1 MiB keeps a batch under message.max.bytes.
CASES = [
    (-1, None, 5, 16384),
    (-1, None, 20, 1000000),
    (1, None, 5, 16384),
    (1, None, 20, 1000000),
]
# Issue 22, acceptance 1: acks=all RF 3 (min.insync.replicas=2) and acks=1 RF 1, linger 5, default batches.
ACCEPTANCE_CASES = [
    (-1, 3, 5, CLIENT_DEFAULT),
    (1, 1, 5, CLIENT_DEFAULT),
]


def case_label(case):
    acks, replication_factor, linger, batch = case
    batch_label = {16384: "16KiB", 1000000: "1MB", CLIENT_DEFAULT: "default"}.get(batch, str(batch))
    return "acks=%d RF %d linger=%dms batch=%s" % (acks, replication_factor, linger, batch_label)


def producer_settings(case):
    acks, _, linger, batch = case
    settings = {"acks": acks, "linger.ms": linger}
    if batch is not CLIENT_DEFAULT:
        settings["batch.size"] = batch
    return settings


def produce_once(target, case, args):
    """One run of `case` on a fresh topic of `target`: its records/s, after a line with what it saw."""
    topic = unique_topic("repl")
    replication_factor = case[1]
    partitions, replicas = target.create_topic(
        topic, args.partitions, replication_factor, {"min.insync.replicas": str(min(args.min_isr, replication_factor))}
    )
    seconds, missing, error = produce_run(
        target.bootstrap_servers, topic, args.records, b"v" * VALUE_SIZE, producer_settings(case), RUN_TIMEOUT
    )
    rate = (args.records - missing) / seconds
    hw, waited, min_isr = wait_for_high_watermarks(target.bootstrap_servers, topic, args.records - missing)
    print(
        "  %-8s %-38s %9.0f rec/s  %d partitions RF %d; high watermarks %d (+%.2fs), min ISR %d%s"
        % (
            target.name,
            case_label(case),
            rate,
            partitions,
            replicas,
            hw,
            waited,
            min_isr,
            "; %d undelivered (%s)" % (missing, error) if missing else "",
        ),
        flush=True,
    )
    return rate


def bench(targets, cases, args):
    """{target name: {case: median records/s}}. The targets run side by side, alternating run by run (which goes
    first alternates too), so that both meet the same load of a shared machine."""
    runs = {target.name: {case: [] for case in cases} for target in targets}
    for repeat in range(args.repeat):
        for index, case in enumerate(cases):
            order = targets if (repeat + index) % 2 == 0 else targets[::-1]
            for target in order:
                runs[target.name][case].append(produce_once(target, case, args))
    return {name: {case: statistics.median(rates) for case, rates in by_case.items()} for name, by_case in runs.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--partitions", type=int, default=6, help="kafka-zk partitions (the mock makes 4)")
    parser.add_argument(
        "--replication-factor", type=int, default=3, help="kafka-zk topics' replication factor for the default cases"
    )
    parser.add_argument("--min-isr", type=int, default=2, help="min.insync.replicas (at most the RF)")
    parser.add_argument(
        "--acceptance",
        action="store_true",
        help="issue 22 acceptance 1 instead of the default cases: acks=all RF 3 and acks=1 RF 1, "
        "linger 5, the client's default batch size; --repeat 3 unless given",
    )
    parser.add_argument("--repeat", type=int, help="runs per case; the median is reported (default 1)")
    parser.add_argument("--only", choices=["kafka-zk", "mock"])
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    if args.repeat is None:
        args.repeat = 3 if args.acceptance else 1
    cases = (
        ACCEPTANCE_CASES
        if args.acceptance
        else [(acks, args.replication_factor, linger, batch) for acks, _, linger, batch in CASES]
    )
    print(
        "%d records of %d-byte values per case, median of %d; kafka-zk: 3 brokers, %d partitions, "
        "min.insync.replicas=%d (at most the RF)"
        % (args.records, VALUE_SIZE, args.repeat, args.partitions, args.min_isr)
    )
    targets = []
    if args.only in (None, "kafka-zk"):
        # the brokers run this checkout's code, not whatever kafka_zk the venv has installed
        targets.append(KafkaZkTarget(keep_data=args.keep_data, environment={"PYTHONPATH": str(TREE)}))
    if args.only in (None, "mock"):
        targets.append(MockTarget())
    try:
        for target in targets:
            print("starting %s ..." % target.name)
            target.start()
        by_target = bench(targets, cases, args)
    finally:
        for target in targets:
            target.stop()
    ours, mock = by_target.get("kafka-zk", {}), by_target.get("mock", {})
    print()
    print("The mock auto-creates 4 partitions with RF 3, keeps one log and answers acks=-1 at once.")
    header = "%-38s %14s %8s %14s %8s %8s" % ("case", "kafka-zk rec/s", "MB/s", "mock rec/s", "MB/s", "kz/mock")
    print(header)
    for case in cases:
        ours_rate, mock_rate = ours.get(case, 0), mock.get(case, 0)
        print(
            "%-38s %14.0f %8.1f %14.0f %8.1f %8s"
            % (
                case_label(case),
                ours_rate,
                ours_rate * VALUE_SIZE / 1e6,
                mock_rate,
                mock_rate * VALUE_SIZE / 1e6,
                "%.2f" % (ours_rate / mock_rate) if ours_rate and mock_rate else "-",
            )
        )
    if not args.acceptance and ours.get(cases[0]) and ours.get(cases[2]):
        print("kafka-zk acks=-1 / acks=1 (linger 5ms, 16KiB): %.2f" % (ours[cases[0]] / ours[cases[2]]))


if __name__ == "__main__":
    main()
