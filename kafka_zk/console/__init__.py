"""The web console: its own process that reads the cluster through ZooKeeper and the admin client, and serves
pages, JSON and operator actions over HTTP (kafka-zk-console)."""
