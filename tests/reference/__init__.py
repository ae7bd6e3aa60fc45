"""Differential tests against Apache Kafka 2.5.1 itself (its jars from pom.xml), and their corpora."""
