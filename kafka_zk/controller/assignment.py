"""Replica assignment for new topics and partitions: Kafka's spread, rack-aware when every broker has a rack."""

import enum
import random
from collections.abc import Iterable, Mapping
from typing import Protocol


class RandomSource(Protocol):
    """Where the random start and shift come from: the random module, or a seeded random.Random."""

    def randrange(self, stop: int, /) -> int: ...


class InvalidReplicationFactorError(ValueError):
    pass


class InvalidPartitionsError(ValueError):
    pass


class IncompleteRackInformationError(ValueError):
    """Some brokers have a rack and some do not (Kafka's AdminOperationException for that case)."""


# ZooKeeper refuses a znode larger than jute.maxbuffer (1 MiB less one byte by default); a topic's assignment
# is one znode, and each partition costs at least `"p":[b],` in it.
ZNODE_MAX_BYTES = 0xFFFFF


def check_assignment_fits(partition_count: int, replication_factor: int) -> None:
    smallest_entry = 6 + 2 * max(1, replication_factor)
    if partition_count * smallest_entry > ZNODE_MAX_BYTES:
        raise InvalidPartitionsError(
            "Number of partitions %d with replication factor %d does not fit in the topic's ZooKeeper znode "
            "(at most %d bytes)." % (partition_count, replication_factor, ZNODE_MAX_BYTES)
        )


def _replica_index(first_index: int, shift: int, replica: int, broker_count: int) -> int:
    step = 1 + (shift + replica) % (broker_count - 1)
    return (first_index + step) % broker_count


class RackAwareMode(enum.Enum):
    """How a caller treats brokers' racks (Kafka's RackAwareMode)."""

    ENFORCED = "enforced"  # some brokers without a rack is an error
    SAFE = "safe"  # some brokers without a rack: ignore every rack
    DISABLED = "disabled"  # ignore every rack


def racks_under(mode: RackAwareMode, broker_racks: Mapping[int, str | None]) -> dict[int, str | None]:
    """{broker id: rack or None} as an assignment under ``mode`` may see them (Kafka's getBrokerMetadatas)."""
    racks = dict(broker_racks)
    with_rack = sum(rack is not None for rack in racks.values())
    partial = 0 < with_rack < len(racks)
    if mode is RackAwareMode.ENFORCED and partial:
        raise IncompleteRackInformationError(
            "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica "
            "assignment without rack information."
        )
    if mode is RackAwareMode.DISABLED or partial:
        return dict.fromkeys(racks)
    return racks


def growth_start_index(broker_ids: Iterable[int], first_replica: int) -> int:
    """Where new partitions start when a topic grows: the position of partition 0's first replica (or the next
    broker after it) among the sorted broker ids, as Kafka's addPartitions."""
    return next((index for index, broker in enumerate(sorted(broker_ids)) if broker >= first_replica), 0)


def rack_alternated(broker_racks: Mapping[int, str | None]) -> list[int]:
    """The brokers ordered by taking one of each rack in turn (racks sorted, each rack's brokers sorted); brokers
    without racks are one rack, so their order is simply the sorted ids."""
    by_rack: dict[str | None, list[int]] = {}
    for broker in sorted(broker_racks):
        by_rack.setdefault(broker_racks[broker], []).append(broker)
    queues = [by_rack[rack] for rack in sorted(by_rack)]  # type: ignore[type-var]  # every rack a str, or all None
    return [queue[turn] for turn in range(max(map(len, queues))) for queue in queues if turn < len(queue)]


def assign_replicas(
    partition_count: int,
    replication_factor: int,
    brokers: Mapping[int, str | None] | Iterable[int],
    start_index: int | None = None,
    start_partition: int = 0,
    rng: RandomSource = random,
) -> dict[int, list[int]]:
    """Return {partition: [broker ids]}: leaders round-robin from a random start, followers shifted.

    ``brokers`` is {broker id: rack or None} (or just broker ids, meaning no racks). Without racks this is
    Kafka's rack-unaware spread over the sorted ids; when every broker has a rack it is Kafka's rack-aware one:
    the same round-robin over the rack-alternated list, where a follower skips a broker whose rack already
    holds a replica (until every rack does). Brokers without racks count as one rack, which makes the two the
    same walk. Deterministic when start_index is given (tests); random start and shift otherwise, as in Kafka.
    """
    if partition_count <= 0:
        raise InvalidPartitionsError("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise InvalidReplicationFactorError("Replication factor must be larger than 0.")
    racks: dict[int, str | None] = dict(brokers) if isinstance(brokers, Mapping) else dict.fromkeys(brokers)
    check_assignment_fits(start_partition + partition_count, replication_factor)
    if replication_factor > len(racks):
        raise InvalidReplicationFactorError(
            "Replication factor: %d larger than available brokers: %d." % (replication_factor, len(racks))
        )
    if 0 < sum(rack is not None for rack in racks.values()) < len(racks):
        raise IncompleteRackInformationError("Not all brokers have rack information for replica rack aware assignment.")
    arranged = rack_alternated(racks)
    rack_count = len(set(racks.values()))
    count = len(arranged)
    first = start_index if start_index is not None else rng.randrange(count)
    shift = start_index if start_index is not None else rng.randrange(count)
    assignment: dict[int, list[int]] = {}
    partition = max(0, start_partition)
    for _ in range(partition_count):
        if partition > 0 and partition % count == 0:
            shift += 1
        first_index = (partition + first) % count
        replicas = [arranged[first_index]]
        racks_used = {racks[replicas[0]]}
        step = 0
        while len(replicas) < replication_factor:
            broker = arranged[_replica_index(first_index, shift * rack_count, step, count)]
            step += 1
            if broker not in replicas and (racks[broker] not in racks_used or len(racks_used) == rack_count):
                replicas.append(broker)
                racks_used.add(racks[broker])
        assignment[partition] = replicas
        partition += 1
    return assignment


def parse_replica_assignment(text: str) -> dict[int, list[int]]:
    """Parse kafka-topics' --replica-assignment '1:2,3:4' into {partition: [brokers]}."""
    assignment: dict[int, list[int]] = {}
    for partition, group in enumerate(text.split(",")):
        try:
            replicas = [int(item) for item in group.split(":") if item.strip()]
        except ValueError:
            raise InvalidPartitionsError("Invalid replica assignment: %s" % text) from None
        if len(set(replicas)) != len(replicas):
            raise InvalidPartitionsError(
                "Partition replica lists may not contain duplicate entries. Partition %d: %s" % (partition, group)
            )
        assignment[partition] = replicas
    if assignment and len({len(replicas) for replicas in assignment.values()}) != 1:
        raise InvalidReplicationFactorError("Partition 0 has different replication factor: %s" % text)
    return assignment
