"""Replication: ReplicaManager, Partition, fetchers, fetch sessions, delayed produce/fetch, log-dir moves."""
