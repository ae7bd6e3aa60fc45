#!/usr/bin/env bash
# Run a local kafka-zk cluster: ZooKeeper on 127.0.0.1:2181 and brokers 0,1,2 on 127.0.0.1:9092-9094.
#   scripts/local-cluster.sh [--data DIR] [--brokers N] [--racks R] [--zookeepers 1|3|5] [--hosts] [--daemon]
#                                                                   start (foreground unless --daemon)
#   scripts/local-cluster.sh stop | status
#   scripts/local-cluster.sh broker ID start|stop|kill | zookeeper N start|stop|kill
#   scripts/local-cluster.sh net cut A B [--one-way] | net isolate A [--keep-clients] | net slow A [--rate 1mbit]
#                            | net heal [A] | net status                  (a cluster started with --hosts)
# --hosts puts each ZooKeeper server (zk-1..) and broker (broker-0..) in a network namespace of its own on one bridge,
# addresses 198.18.0.11.. and 198.18.0.20..; this shell is the host "client" (198.18.0.1). Needs root; nftables is
# installed from Debian when missing. Later commands on the same --data need no flags: they read DATA/layout.json.
# The web console serves on http://127.0.0.1:9000/ (--console-port N moves it, 0 leaves it out).
# --brokers N runs N brokers (default 3); --racks R (1..N) puts broker i in rack rack-<i mod R> (broker.rack).
# --secure --kerberos adds a Kerberos KDC (realm KAFKA.LOCAL, port 8188) and GSSAPI on the client listeners: krb5.conf,
# keytabs and <user>-gssapi.properties land in DATA/secure.
# --kafka-brokers K (0..N) runs the last K brokers as Apache Kafka 2.5.1's own (JVM) brokers; `status` names each kind.
# With 3 brokers or more the internal topics get Kafka's production settings (__consumer_offsets and
# __transaction_state with 3 replicas, transaction.state.log.min.isr=2); with fewer, 1 replica.
# Each start rewrites server.properties: give `broker ID start` the same --brokers/--racks as the first start.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
if wants_help "$@"; then
    print_usage kafka_zk.tools.local_cluster
fi
# Only starting needs Java and ZooKeeper's jars; stop and status work without them.
needs_zookeeper=yes
needs_nft=no
needs_kafka=no
needs_kerberos=no
data="${KAFKA_ZK_DATA:-data}"
previous=""
for arg in "$@"; do
    case "$arg" in
        stop|status) needs_zookeeper=no ;;
        net) needs_zookeeper=no; needs_nft=yes ;;
        --hosts) needs_nft=yes ;;
        --kafka-brokers|--kafka-brokers=*) needs_kafka=yes ;;
        --kerberos) needs_kerberos=yes ;;
        --data=*) data="${arg#--data=}" ;;
    esac
    if [ "$previous" = --data ]; then data="$arg"; fi
    previous="$arg"
done
# Apache Kafka's jars, when this start or the cluster's last one (its layout.json) runs some of its brokers.
if (cd "$ROOT" && grep -qs '"kafka_brokers": [1-9]' "$data/layout.json"); then needs_kafka=yes; fi
if [ "$needs_nft" = yes ] && ! command -v nft >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing nftables from Debian (the network cuts between hosts)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables) >/dev/null 2>&1 \
        || echo "nftables could not be installed: net cut/isolate will say so" >&2
fi
if [ "$needs_zookeeper" = yes ]; then
    require_java
    ensure_venv
    ensure_compiled
    ensure_zookeeper
    if [ "$needs_kafka" = yes ]; then
        ensure_kafka_reference
    fi
    # a --kerberos cluster (this start or its last one): MIT's KDC, kinit and the gssapi binding
    if [ "$needs_kerberos" = yes ] || (cd "$ROOT" && grep -qs '"kerberos": true' "$data/layout.json"); then
        ensure_kerberos || exit 1
    fi
else
    ensure_venv
fi
cd "$ROOT"
exec "$PY" -m kafka_zk.tools.local_cluster "$@"
