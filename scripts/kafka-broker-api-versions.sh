#!/usr/bin/env bash
# kafka-broker-api-versions.sh --bootstrap-server HOST:PORT [--command-config F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.broker_api_versions "$@"
