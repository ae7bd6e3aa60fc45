"""Client byte-rate quotas (Kafka's ClientQuotaManager): quota lookup by user/client-id, sampled rates, throttle time.

Pure: the caller passes the time in milliseconds. Quota entities are keyed as in ZooKeeper: a user and a
client-id part, each a sanitized name, "<default>", or None (not part of the entity).

Metrics as Kafka's: every client a quota applies to has ``kafka.server:type=Produce|Fetch,user=u,client-id=c``
with attributes ``byte-rate`` (its measured rate) and ``throttle-time`` (the mean throttle time of its throttled
responses in the quota window; 0 without any), for the quota entity it is measured under.
"""

from kafka_zk.common.metrics import MetricName
from kafka_zk.common.sampled_stats import SampledAvg, SampledRate

DEFAULT = "<default>"
ANONYMOUS = "ANONYMOUS"


METRIC_TYPES = {"producer_byte_rate": "Produce", "consumer_byte_rate": "Fetch"}


class ClientQuotaManager:
    """One quota type (producer_byte_rate or consumer_byte_rate) for every client of a broker."""

    def __init__(self, config_name, samples=11, window_ms=1000):
        self.config_name = config_name
        self.metric_type = METRIC_TYPES.get(config_name, config_name)
        self.samples = samples
        self.window_ms = window_ms
        self.quotas = {}  # (user part, client part) -> bytes/second
        # Is any quota set? Without one nothing is measured or throttled (Kafka's quotasEnabled). A plain attribute
        # kept by update_quota, as every request asks.
        self.enabled = False
        self.rates = {}  # metric entity (user, client-id) -> SampledRate
        self.throttle_times = {}  # metric entity -> SampledAvg of its throttle times

    def update_quota(self, user, client_id, value):
        """user / client_id: sanitized name, "<default>" or None; value None removes the quota."""
        key = (user, client_id)
        if value is None:
            self.quotas.pop(key, None)
        else:
            self.quotas[key] = float(value)
        self.enabled = bool(self.quotas)
        self.rates.clear()  # the quota entity of a client may have changed: start measuring afresh
        self.throttle_times.clear()

    def quota_for(self, user, client_id):
        """(bound, metric entity) of the most specific quota that applies, or (None, None)."""
        for user_part, client_part in (
            (user, client_id),
            (user, DEFAULT),
            (user, None),
            (DEFAULT, client_id),
            (DEFAULT, DEFAULT),
            (DEFAULT, None),
            (None, client_id),
            (None, DEFAULT),
        ):
            bound = self.quotas.get((user_part, client_part))
            if bound is not None:
                return bound, (user if user_part is not None else "", client_id if client_part is not None else "")
        return None, None

    def record(self, user, client_id, value, now_ms):
        """Record bytes; returns the throttle time in ms (0 when within quota)."""
        if not self.enabled:  # no quota set (the usual broker): quota_for's eight look-ups would find none
            return 0
        bound, entity = self.quota_for(user, client_id)
        if bound is None:
            return 0
        rate = self.rates.get(entity)
        if rate is None:
            rate = self.rates[entity] = SampledRate(self.samples, self.window_ms)
        rate.record(value, now_ms)
        measured = rate.measure(now_ms)
        if measured <= bound:
            return 0
        throttle = int(round((measured - bound) / bound * rate.window_size_ms(now_ms)))
        if throttle > 0:
            average = self.throttle_times.get(entity)
            if average is None:
                average = self.throttle_times[entity] = SampledAvg(self.samples, self.window_ms)
            average.record(throttle, now_ms)
        return throttle

    def metric_samples(self, now_ms):
        """(MetricName, value) of every measured client: byte-rate and throttle-time, as Kafka's sensors."""
        for (user, client_id), rate in list(self.rates.items()):
            tags = (("user", user), ("client-id", client_id))
            average = self.throttle_times.get((user, client_id))
            yield (
                MetricName("kafka.server", self.metric_type, None, tags + (("attribute", "throttle-time"),)),
                average.measure(now_ms) if average is not None else 0.0,
            )
            yield (
                MetricName("kafka.server", self.metric_type, None, tags + (("attribute", "byte-rate"),)),
                rate.measure(now_ms),
            )

    def unrecord(self, user, client_id, value, now_ms):
        """Take back bytes recorded for a response that is sent empty because it is throttled."""
        _, entity = self.quota_for(user, client_id)
        rate = self.rates.get(entity)
        if rate is not None:
            rate.record(-value, now_ms)
