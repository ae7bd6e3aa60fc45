"""Our own blocking Kafka client: connections, cluster metadata, admin, producer, consumers, ZooKeeper-side admin."""
