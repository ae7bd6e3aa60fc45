#!/usr/bin/env bash
# Start a ZooKeeper server from a Kafka-style zookeeper.properties (dataDir, clientPort, any zoo.cfg key).
# In the foreground the server logs to the console; with -daemon it runs in the background and
# logs to <dataDir>/zookeeper.log, and this script returns once the server answers requests.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "USAGE: $0 [-daemon] zookeeper.properties" >&2
  exit 1
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="$ROOT/.venv/bin/python"
[ -x "$PYTHON" ] || PYTHON=python3
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

DAEMON=()
if [ "$1" = "-daemon" ]; then
  DAEMON=(--daemon)
  shift
fi
if [ $# -lt 1 ]; then
  echo "USAGE: $0 [-daemon] zookeeper.properties" >&2
  exit 1
fi

exec "$PYTHON" -m zookeeper.launcher start --config "$1" "${DAEMON[@]}"
