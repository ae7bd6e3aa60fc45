#!/usr/bin/env bash
# kafka-preferred-replica-election.sh (--bootstrap-server HOST:PORT | --zookeeper HOST:PORT) [--path-to-json-file F]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.preferred_replica_election "$@"
