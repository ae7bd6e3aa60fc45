"""The broker's metrics: BrokerTopicMetrics, hot-path wiring, the Prometheus endpoint (the registry is in common/)."""
