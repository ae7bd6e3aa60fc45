"""Packaging of a real Apache ZooKeeper for kafka-zk: config template, log config and launcher."""
