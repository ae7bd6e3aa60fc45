#!/usr/bin/env bash
# Stop the ZooKeeper server whose dataDir is named in zookeeper.properties (default: config/zookeeper.properties).
# The server is found through the pid file in its dataDir: SIGTERM, then SIGKILL if it lingers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
if wants_help "$@"; then
    print_usage zookeeper.launcher:server_stop_parser
fi
exec "$(python_or_system)" -c "import sys; from zookeeper.launcher import server_stop_main; sys.exit(server_stop_main(sys.argv[1:]))" \
    "${@:-$ROOT/config/zookeeper.properties}"
