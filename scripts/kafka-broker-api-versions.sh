#!/usr/bin/env bash
# kafka-broker-api-versions.sh --bootstrap-server HOST:PORT [--command-config F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.broker_api_versions "$@"
