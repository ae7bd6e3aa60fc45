#!/usr/bin/env bash
# kafka-server-start.sh [-daemon] server.properties [--override property=value]*
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
if wants_help "$@"; then
    print_usage kafka_zk.server.main
fi
if [ $# -lt 1 ]; then
    echo "USAGE: $0 [-daemon] server.properties [--override property=value]*" >&2
    exit 1
fi
daemon=0
if [ "$1" = "-daemon" ]; then daemon=1; shift; fi
PYTHON="$(python_or_system)"
if [ "$daemon" = 1 ]; then
    export LOG_DIR="${LOG_DIR:-$ROOT/logs}"
    mkdir -p "$LOG_DIR"
    cd "$ROOT"
    nohup "$PYTHON" -m kafka_zk.server.main "$@" >>"$LOG_DIR/kafkaServer.out" 2>&1 </dev/null &
    echo $! >"$LOG_DIR/kafka-server-$!.pid"
    exit 0
fi
cd "$ROOT"
exec "$PYTHON" -m kafka_zk.server.main "$@"
