#!/usr/bin/env bash
# ZooKeeper's own shell (ZooKeeperMain) against HOST:PORT[,HOST:PORT...][/chroot]; with a command after the address
# it runs that one command and exits, e.g. `zookeeper-shell.sh localhost:2181 get /brokers/ids/0`.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "USAGE: $0 zookeeper_host:port[/path] [args...]" >&2
  exit 1
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="$ROOT/.venv/bin/python"
[ -x "$PYTHON" ] || PYTHON=python3
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

exec "$PYTHON" -m zookeeper.launcher shell "$@"
