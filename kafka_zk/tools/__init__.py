"""The command-line tools under Kafka's names, the local cluster, hosts in network namespaces, the Spark cluster."""
