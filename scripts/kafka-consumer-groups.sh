#!/usr/bin/env bash
# kafka-consumer-groups.sh [options]: kafka_zk.tools.consumer_groups with the repository's virtualenv (python3 when there is none).
# No cd: relative paths in the arguments stay relative to the caller's directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.consumer_groups "$@"
