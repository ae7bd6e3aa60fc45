#!/usr/bin/env bash
# kafka-preferred-replica-election.sh (--bootstrap-server HOST:PORT | --zookeeper HOST:PORT) [--path-to-json-file F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.preferred_replica_election "$@"
