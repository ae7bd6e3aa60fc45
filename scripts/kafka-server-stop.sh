#!/usr/bin/env bash
# Stops every kafka-zk broker on this machine with SIGTERM (a clean shutdown), like Kafka's script.
pids=$(pgrep -f "kafka_zk.server.main" || true)
if [ -z "$pids" ]; then
    echo "No kafka server to stop"
    exit 1
fi
kill -s TERM $pids
