"""kafka-run-class: run one of the Kafka tool classes we implement by its Java class name."""

import argparse
import importlib
import sys

# Java main class -> our tool module (each has main(argv)).
CLASSES = {
    "kafka.tools.GetOffsetShell": "kafka_zk.tools.get_offsets",
    "kafka.tools.DumpLogSegments": "kafka_zk.tools.dump_log",
    "kafka.tools.ConsoleProducer": "kafka_zk.tools.console_producer",
    "kafka.tools.ConsoleConsumer": "kafka_zk.tools.console_consumer",
    "kafka.tools.ConsumerPerformance": "kafka_zk.tools.consumer_perf",
    "org.apache.kafka.tools.ProducerPerformance": "kafka_zk.tools.producer_perf",
    "kafka.admin.TopicCommand": "kafka_zk.tools.topics",
    "kafka.admin.ConfigCommand": "kafka_zk.tools.configs",
    "kafka.admin.ReassignPartitionsCommand": "kafka_zk.tools.reassign_partitions",
    "kafka.admin.DeleteRecordsCommand": "kafka_zk.tools.delete_records",
    "kafka.admin.DelegationTokenCommand": "kafka_zk.tools.delegation_tokens",
    "kafka.admin.LogDirsCommand": "kafka_zk.tools.log_dirs",
    "kafka.admin.LeaderElectionCommand": "kafka_zk.tools.leader_election",
    "kafka.admin.PreferredReplicaLeaderElectionCommand": "kafka_zk.tools.preferred_replica_election",
    "kafka.admin.BrokerApiVersionsCommand": "kafka_zk.tools.broker_api_versions",
}


USAGE = "kafka-run-class.sh [-daemon] [-name servicename] [-loggc] classname [opts]"


def build_parser():
    """The usage of kafka-run-class itself (a class name's own options are its tool's)."""
    parser = argparse.ArgumentParser(
        prog="kafka-run-class.sh",
        usage=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run one of the Kafka tool classes kafka-zk implements by its Java class name.",
        epilog="classes:\n" + "\n".join("  %-50s %s" % (name, module) for name, module in CLASSES.items()),
    )
    parser.add_argument("classname", help="the Java main class of the tool")
    parser.add_argument("opts", nargs=argparse.REMAINDER, help="the tool's own options (classname --help: its usage)")
    return parser


def resolve(class_name):
    """(the tool module of a Java class name, the prog its usage names) or None."""
    module_name = CLASSES.get(class_name)
    if module_name is None:
        return None
    return module_name, "kafka-run-class.sh " + class_name


def parser_for(argv):
    """The parser --help describes: the named class's tool's, or kafka-run-class's own (see tools.usage)."""
    target = resolve(argv[0]) if argv else None
    if target is None:
        return build_parser()
    module = importlib.import_module(target[0])
    if target[0] == "kafka_zk.tools.get_offsets":
        return module.build_parser(prog=target[1])
    return module.build_parser()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print("USAGE: " + USAGE, file=sys.stderr)
        return 1
    class_name, rest = argv[0], argv[1:]
    target = resolve(class_name)
    if target is None:
        print("Error: Could not find or load main class %s" % class_name, file=sys.stderr)
        return 1
    module = importlib.import_module(target[0])
    if target[0] == "kafka_zk.tools.get_offsets":
        return module.main(rest, prog=target[1])
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
