"""The broker's configuration: KafkaConfig, dynamic broker config, topic configs, /config/changes, loggers."""
