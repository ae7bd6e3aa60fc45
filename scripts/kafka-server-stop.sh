#!/usr/bin/env bash
# Stops every kafka-zk broker on this machine with SIGTERM (a clean shutdown), like Kafka's script.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
if wants_help "$@"; then
    print_usage kafka_zk.server.main:build_stop_parser
fi
cd "$ROOT"
exec "$(python_or_system)" -c "import sys; from kafka_zk.server.main import stop_main; sys.exit(stop_main(sys.argv[1:]))" "$@"
