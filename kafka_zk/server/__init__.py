"""What only a broker runs: KafkaServer's service tree, the API handlers, replication, configs, quotas, metrics."""
