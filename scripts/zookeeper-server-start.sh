#!/usr/bin/env bash
# Start a ZooKeeper server from a Kafka-style zookeeper.properties (dataDir, clientPort, any zoo.cfg key).
# In the foreground the server logs to the console; with -daemon it runs in the background and
# logs to <dataDir>/zookeeper.log, and this script returns once the server answers requests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
if wants_help "$@"; then
    print_usage zookeeper.launcher:server_start_parser
fi
exec "$(python_or_system)" -c "import sys; from zookeeper.launcher import server_start_main; sys.exit(server_start_main(sys.argv[1:]))" "$@"
