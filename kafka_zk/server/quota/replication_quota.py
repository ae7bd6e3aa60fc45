"""Replication quotas: which partitions are throttled and whether their byte rate is over the limit (Kafka's
ReplicationQuotaManager), as plain decision code over an injected clock (anything with seconds())."""

from kafka_zk.common.clock import milliseconds

ALL_REPLICAS = "*"
UNLIMITED = 9223372036854775807


def parse_throttled_replicas(value, broker_id):
    """The partitions of a ``leader/follower.replication.throttled.replicas`` value that name ``broker_id``:
    ALL_REPLICAS for "*", else a set of partition ids (empty when the value does not name this broker)."""
    if isinstance(value, (list, tuple)):
        value = ",".join(value)
    text = (value or "").strip()
    if text == ALL_REPLICAS:
        return ALL_REPLICAS
    partitions = set()
    for item in text.split(","):
        partition, sep, broker = item.strip().partition(":")
        if sep and broker.strip() == str(broker_id):
            partitions.add(int(partition))
    return partitions


class SampledRate:
    """Bytes per second over ``samples`` windows of ``window_ms`` each (Kafka's SampledStat with SimpleRate:
    the rate divides by the time since the oldest live window began, and by at least one window)."""

    def __init__(self, samples=11, window_ms=1000):
        self.samples = max(1, int(samples))
        self.window_ms = max(1, int(window_ms))
        self._windows = []  # [start_ms, total], oldest first

    def record(self, value, now_ms):
        self._purge(now_ms)
        if not self._windows or now_ms - self._windows[-1][0] >= self.window_ms:
            self._windows.append([now_ms, 0.0])
            if len(self._windows) > self.samples:
                del self._windows[0]
        self._windows[-1][1] += value

    def _purge(self, now_ms):
        expire = self.samples * self.window_ms
        self._windows = [w for w in self._windows if now_ms - w[0] < expire]

    def measure(self, now_ms):
        """Bytes per second now; 0 when nothing was recorded in the live windows."""
        self._purge(now_ms)
        if not self._windows:
            return 0.0
        total = sum(w[1] for w in self._windows)
        elapsed_ms = max(now_ms - self._windows[0][0], self.window_ms)
        return total * 1000.0 / elapsed_ms


class ReplicationQuota:
    """One side's quota (leader or follower) on one broker: the throttled partitions of each topic, the rate
    limit in bytes/second, and the rate of throttled bytes moved so far."""

    def __init__(self, clock, limit=UNLIMITED, samples=11, window_ms=1000):
        self.clock = clock
        self.limit = limit
        self.rate = SampledRate(samples, window_ms)
        self._throttled = {}  # topic -> ALL_REPLICAS or set of partitions

    def set_limit(self, limit):
        self.limit = UNLIMITED if limit is None else int(limit)

    def set_window(self, samples, window_ms):
        if (samples, window_ms) != (self.rate.samples, self.rate.window_ms):
            self.rate = SampledRate(samples, window_ms)

    def mark_throttled(self, topic, partitions):
        """ALL_REPLICAS or a set of partition ids; an empty set removes the topic's throttle."""
        if partitions == ALL_REPLICAS or partitions:
            self._throttled[topic] = partitions
        else:
            self._throttled.pop(topic, None)

    def remove_throttle(self, topic):
        self._throttled.pop(topic, None)

    def is_throttled(self, tp):
        partitions = self._throttled.get(tp[0])
        return partitions is not None and (partitions == ALL_REPLICAS or tp[1] in partitions)

    def is_quota_exceeded(self):
        if self.limit >= UNLIMITED:
            return False
        return self.rate.measure(milliseconds(self.clock)) > self.limit

    def record(self, value):
        self.rate.record(value, milliseconds(self.clock))

    def current_rate(self):
        return self.rate.measure(milliseconds(self.clock))


def should_throttle(quota, tp, replica_in_sync):
    """Kafka's rule on both sides: a replica that is not in sync, of a throttled partition, while the quota is
    exceeded, is left out (of the leader's answer, or of the follower's request)."""
    return not replica_in_sync and quota.is_throttled(tp) and quota.is_quota_exceeded()


LEADER_THROTTLED_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_THROTTLED_REPLICAS = "follower.replication.throttled.replicas"
LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
WINDOW_NUM = "replication.quota.window.num"
WINDOW_SIZE_SECONDS = "replication.quota.window.size.seconds"
BROKER_CONFIG_NAMES = (LEADER_RATE, FOLLOWER_RATE, WINDOW_NUM, WINDOW_SIZE_SECONDS)


class ReplicationQuotas:
    """A broker's leader and follower replication quotas, fed by its broker configs and topic configs."""

    def __init__(self, broker_id, clock):
        self.broker_id = broker_id
        self.leader = ReplicationQuota(clock)
        self.follower = ReplicationQuota(clock)

    def on_broker_config(self, values):
        """{name: value} of BROKER_CONFIG_NAMES (a DynamicBrokerConfig listener)."""
        samples = values.get(WINDOW_NUM) or 11
        window_ms = (values.get(WINDOW_SIZE_SECONDS) or 1) * 1000
        for quota, name in ((self.leader, LEADER_RATE), (self.follower, FOLLOWER_RATE)):
            quota.set_window(samples, window_ms)
            quota.set_limit(values.get(name))

    def on_topic_config(self, topic, overrides):
        """A topic's config overrides (strings as stored in ZooKeeper) changed."""
        for quota, name in ((self.leader, LEADER_THROTTLED_REPLICAS), (self.follower, FOLLOWER_THROTTLED_REPLICAS)):
            quota.mark_throttled(topic, parse_throttled_replicas(overrides.get(name, ""), self.broker_id))
