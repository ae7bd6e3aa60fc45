#!/usr/bin/env bash
# kafka-configs.sh --bootstrap-server HOST:PORT|--zookeeper HOST:PORT
#                  --entity-type topics|brokers|broker-loggers|clients|users [--entity-name N|--entity-default]
#                  --alter --add-config k=v[,k2=[a,b]] --delete-config k | --describe [--all]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.configs "$@"
