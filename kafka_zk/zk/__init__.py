"""Kafka's ZooKeeper layout: one class per znode, KafkaZkClient over a kazoo session, its reactor-side twin, ACLs."""
