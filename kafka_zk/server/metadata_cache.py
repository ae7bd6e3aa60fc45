"""The broker's view of the cluster (live brokers, partition leaders), filled by UpdateMetadata."""

from collections import namedtuple

PartitionInfo = namedtuple(
    "PartitionInfo", "leader leader_epoch isr replicas offline_replicas controller_epoch zk_version"
)
BrokerEndpoints = namedtuple("BrokerEndpoints", "broker_id endpoints rack")  # endpoints: {listener: (host, port)}


class MetadataCache:
    def __init__(self, broker_id):
        self.broker_id = broker_id
        self.controller_id = None
        self.controller_epoch = 0
        self.brokers = {}  # id -> BrokerEndpoints
        self.partitions = {}  # topic -> {partition: PartitionInfo}

    def update(self, controller_id, controller_epoch, brokers, partition_states):
        """Apply an UpdateMetadata: brokers replace the live set; partition states are upserts,
        except a leader of -2 (LeaderDuringDelete) which removes the partition."""
        self.controller_id = controller_id
        self.controller_epoch = controller_epoch
        self.brokers = {broker.broker_id: broker for broker in brokers}
        deleted = []
        for topic, partition, info in partition_states:
            if info.leader == -2:
                partitions = self.partitions.get(topic)
                if partitions is not None:
                    partitions.pop(partition, None)
                    if not partitions:
                        del self.partitions[topic]
                deleted.append((topic, partition))
            else:
                self.partitions.setdefault(topic, {})[partition] = info
        return deleted

    def topics(self):
        return list(self.partitions)

    def contains_topic(self, topic):
        return topic in self.partitions

    def partition_info(self, topic, partition):
        return self.partitions.get(topic, {}).get(partition)

    def partition_count(self, topic):
        return len(self.partitions.get(topic, {}))

    def alive_broker_ids(self):
        return sorted(self.brokers)

    def alive_broker_racks(self):
        """{broker id: rack or None} of the live brokers."""
        return {broker_id: broker.rack for broker_id, broker in self.brokers.items()}

    def endpoint(self, broker_id, listener_name):
        broker = self.brokers.get(broker_id)
        if broker is None:
            return None
        return broker.endpoints.get(listener_name)
