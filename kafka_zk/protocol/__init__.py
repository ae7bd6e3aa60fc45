"""Kafka wire protocol codecs: primitives, declarative schemas, one module per API, headers, errors."""
