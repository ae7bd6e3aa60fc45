"""A ReplicaManager for tests without a cluster: no fetchers, no log-dir moves, no throttling, and ISR writes
that lose the race (the ISR stays as the test set it), unless the test passes its own collaborators."""

from twisted.internet import defer

from kafka_zk.server.replication.fetch_session import FetchSessionCache
from kafka_zk.server.replication.replica_manager import ReplicaManager


class NoFetchers:
    """The fetcher manager of a broker whose followers fetch nothing."""

    def add_partitions(self, leader_id, endpoint, partitions):
        pass

    def remove_partitions(self, tps):
        pass

    def log_starts_moved(self, tps):
        pass

    def shutdown(self):
        pass


class NoLogDirMover:
    """The log-dir mover of a broker that moves no replica between its log dirs."""

    def start(self, tp):
        return False

    def cancel(self, tp):
        pass

    def shutdown(self):
        pass


class Unthrottled:
    """A replication quota that throttles nothing."""

    def is_throttled(self, tp):
        return False

    def is_quota_exceeded(self):
        return False

    def record(self, value):
        pass


class UnthrottledQuotas:
    def __init__(self):
        self.leader = Unthrottled()
        self.follower = Unthrottled()


def replica_manager(broker_id, log_manager, topic_config, clock, **options):
    """ReplicaManager(broker_id, log_manager, topic_config, clock, **options), the collaborators not in
    ``options`` standing in for none."""
    options.setdefault("isr_writer", lambda partition, new_isr: defer.succeed(None))
    options.setdefault("is_broker_alive", lambda broker_id: True)
    options.setdefault("replication_quotas", UnthrottledQuotas())
    options.setdefault("fetch_sessions", FetchSessionCache(1000))
    options.setdefault("make_fetchers", lambda fetchable_changed: NoFetchers())
    options.setdefault("make_log_dir_mover", lambda get_partition: NoLogDirMover())
    return ReplicaManager(broker_id, log_manager, topic_config, clock, **options)
