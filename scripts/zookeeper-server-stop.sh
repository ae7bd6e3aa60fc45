#!/usr/bin/env bash
# Stop the ZooKeeper server whose dataDir is named in zookeeper.properties (default: config/zookeeper.properties).
# The server is found through the pid file in its dataDir: SIGTERM, then SIGKILL if it lingers.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="$ROOT/.venv/bin/python"
[ -x "$PYTHON" ] || PYTHON=python3
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

exec "$PYTHON" -m zookeeper.launcher stop --config "${1:-$ROOT/config/zookeeper.properties}"
