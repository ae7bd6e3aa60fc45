#!/usr/bin/env bash
# kafka-acls.sh --bootstrap-server HOST:PORT [--command-config FILE] | --authorizer-properties zookeeper.connect=HOST:PORT
#               --add|--remove|--list [--topic T|--group G|--cluster|--transactional-id I|--delegation-token D]
#               [--resource-pattern-type literal|prefixed|any|match] [--allow-principal User:a] [--deny-principal P]
#               [--allow-host H] [--deny-host H] [--operation Read] [--producer|--consumer [--idempotent]] [--force]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.acls "$@"
