"""The broker's hot-path metrics made and wired in one place: topic stats, listener metrics, quotas, idleness."""

from kafka_zk.common.clock import milliseconds
from kafka_zk.net.request_metrics import ReactorIdleMeter, SocketServerMetrics
from kafka_zk.server.metrics.broker_topic_stats import BrokerTopicStats


class HotPathMetrics:
    """What the request path records into: ``topic_stats`` (BrokerTopicMetrics, for the replica manager, its
    fetchers and the fetch handler) and ``socket`` (RequestMetrics and connections, for the listeners)."""

    def __init__(self, registry, reactor):
        self.registry = registry
        self.reactor = reactor
        self.topic_stats = BrokerTopicStats(registry)
        self.socket = SocketServerMetrics(registry, reactor)
        self.idle = None

    def start(self, quota_managers):
        """Measure the reactor's idleness and expose the client quotas' metrics (nothing when disabled)."""
        registry, reactor = self.registry, self.reactor
        if not registry.enabled:
            return
        idle = ReactorIdleMeter(reactor.seconds)
        if idle.install(reactor):
            idle.register(registry)
            self.idle = idle
        for quotas in quota_managers:
            registry.add_collector(lambda quotas=quotas: quotas.metric_samples(milliseconds(reactor)))
