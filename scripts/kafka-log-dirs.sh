#!/usr/bin/env bash
# kafka-log-dirs.sh --describe --bootstrap-server HOST:PORT [--broker-list 0,1] [--topic-list t1,t2] [--command-config F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.log_dirs "$@"
