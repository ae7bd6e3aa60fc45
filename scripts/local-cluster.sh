#!/usr/bin/env bash
# Run a local kafka-zk cluster: ZooKeeper on 127.0.0.1:2181 and brokers 0,1,2 on 127.0.0.1:9092-9094.
#   scripts/local-cluster.sh [--data DIR] [--brokers N] [--racks R] [--daemon]   start (foreground unless --daemon)
#   scripts/local-cluster.sh stop | status
#   scripts/local-cluster.sh broker ID start|stop|kill
# The web console serves on http://127.0.0.1:9000/ (--console-port N moves it, 0 leaves it out).
# --brokers N runs N brokers (default 3); --racks R (1..N) puts broker i in rack rack-<i mod R> (broker.rack).
# With 3 brokers or more the internal topics get Kafka's production settings (__consumer_offsets and
# __transaction_state with 3 replicas, transaction.state.log.min.isr=2); with fewer, 1 replica.
# Each start rewrites server.properties: give `broker ID start` the same --brokers/--racks as the first start.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
# Only starting needs Java and ZooKeeper's jars; stop and status work without them.
needs_zookeeper=yes
for arg in "$@"; do
    case "$arg" in stop|status) needs_zookeeper=no ;; esac
done
if [ "$needs_zookeeper" = yes ]; then
    require_java
    ensure_venv
    ensure_zookeeper
else
    ensure_venv
fi
cd "$ROOT"
exec "$PY" -m kafka_zk.tools.local_cluster "$@"
