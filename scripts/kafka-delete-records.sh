#!/usr/bin/env bash
# kafka-delete-records.sh --bootstrap-server HOST:PORT --offset-json-file F [--command-config F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.delete_records "$@"
