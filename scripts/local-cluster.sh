#!/usr/bin/env bash
# Run a local kafka-zk cluster: ZooKeeper on 127.0.0.1:2181 and brokers 0,1,2 on 127.0.0.1:9092-9094.
#   scripts/local-cluster.sh [--data DIR] [--daemon]     start (foreground unless --daemon)
#   scripts/local-cluster.sh stop | status
#   scripts/local-cluster.sh broker ID start|stop|kill
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
