#!/usr/bin/env bash
# kafka-zk-console.sh --zookeeper HOST:PORT --bootstrap-server HOST:PORT [--metrics URL,URL,...] [--port 9000]
#   [--command-config FILE]: the web console (kafka_zk.console) with the repository's virtualenv.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.console.main "$@"
