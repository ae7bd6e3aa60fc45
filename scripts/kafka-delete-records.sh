#!/usr/bin/env bash
# kafka-delete-records.sh --bootstrap-server HOST:PORT --offset-json-file F [--command-config F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.delete_records "$@"
