"""Replica assignment for new topics and partitions (Kafka's rack-unaware spread)."""

import random


class InvalidReplicationFactorError(ValueError):
    pass


class InvalidPartitionsError(ValueError):
    pass


# ZooKeeper refuses a znode larger than jute.maxbuffer (1 MiB less one byte by default); a topic's assignment
# is one znode, and each partition costs at least `"p":[b],` in it.
ZNODE_MAX_BYTES = 0xFFFFF


def check_assignment_fits(partition_count, replication_factor):
    smallest_entry = 6 + 2 * max(1, replication_factor)
    if partition_count * smallest_entry > ZNODE_MAX_BYTES:
        raise InvalidPartitionsError(
            "Number of partitions %d with replication factor %d does not fit in the topic's ZooKeeper znode "
            "(at most %d bytes)." % (partition_count, replication_factor, ZNODE_MAX_BYTES))


def _replica_index(first_index, shift, replica, broker_count):
    step = 1 + (shift + replica) % (broker_count - 1)
    return (first_index + step) % broker_count


def assign_replicas(partition_count, replication_factor, broker_ids, start_index=None,
                    start_partition=0, rng=random):
    """Return {partition: [broker ids]}: leaders round-robin from a random start, followers shifted.

    Deterministic when start_index is given (tests); random start otherwise, as in Kafka.
    """
    if partition_count <= 0:
        raise InvalidPartitionsError("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise InvalidReplicationFactorError("Replication factor must be larger than 0.")
    brokers = sorted(broker_ids)
    check_assignment_fits(start_partition + partition_count, replication_factor)
    if replication_factor > len(brokers):
        raise InvalidReplicationFactorError(
            "Replication factor: %d larger than available brokers: %d."
            % (replication_factor, len(brokers)))
    count = len(brokers)
    first = start_index if start_index is not None else rng.randrange(count)
    shift = start_index if start_index is not None else rng.randrange(count)
    assignment = {}
    partition = max(0, start_partition)
    for _ in range(partition_count):
        if partition > 0 and partition % count == 0:
            shift += 1
        first_index = (partition + first) % count
        replicas = [brokers[first_index]]
        for replica in range(replication_factor - 1):
            replicas.append(brokers[_replica_index(first_index, shift, replica, count)])
        assignment[partition] = replicas
        partition += 1
    return assignment


def parse_replica_assignment(text):
    """Parse kafka-topics' --replica-assignment '1:2,3:4' into {partition: [brokers]}."""
    assignment = {}
    for partition, group in enumerate(text.split(",")):
        try:
            replicas = [int(item) for item in group.split(":") if item.strip()]
        except ValueError:
            raise InvalidPartitionsError("Invalid replica assignment: %s" % text) from None
        if len(set(replicas)) != len(replicas):
            raise InvalidPartitionsError(
                "Partition replica lists may not contain duplicate entries. Partition %d: %s"
                % (partition, group))
        assignment[partition] = replicas
    if assignment and len({len(replicas) for replicas in assignment.values()}) != 1:
        raise InvalidReplicationFactorError(
            "Partition 0 has different replication factor: %s" % text)
    return assignment
