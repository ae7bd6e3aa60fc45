"""kafka-run-class: run one of the Kafka tool classes we implement by its Java class name."""

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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print("USAGE: kafka-run-class.sh [-daemon] [-name servicename] [-loggc] classname [opts]", file=sys.stderr)
        return 1
    class_name, rest = argv[0], argv[1:]
    module_name = CLASSES.get(class_name)
    if module_name is None:
        print("Error: Could not find or load main class %s" % class_name, file=sys.stderr)
        return 1
    module = importlib.import_module(module_name)
    if module_name == "kafka_zk.tools.get_offsets":
        return module.main(rest, prog="kafka-run-class.sh kafka.tools.GetOffsetShell")
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
