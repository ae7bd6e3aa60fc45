"""Idle replication cost: each broker's CPU with N idle replicated partitions, and the size of an idle fetch.

Creates the partitions, waits for full ISRs, lets the cluster settle, then samples each broker's CPU (percent
of one core) with no client traffic. Then, against the broker leading the most partitions, it sends what a
follower of all those partitions sends while idle: a full Fetch of every partition (what a sessionless follower
sends every time) and, in a fetch session, an incremental Fetch (what a follower with a session sends), and
prints the bytes on the wire both ways. To compare with another checkout, run this script with PYTHONPATH
pointing at that checkout (the brokers are started with the same interpreter and environment).
"""

import argparse
import os
import shutil
import socket
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from failover import create_topics, full_isr, idle_cpu, wait_until  # noqa: E402
from targets import (  # noqa: E402
    ZkView,  # noqa: E402
    free_port,
    rss_mb,
)

import kafka_zk  # noqa: E402
from kafka_zk.protocol.headers import decode_response, encode_request  # noqa: E402
from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402

FETCH = 1
FETCH_VERSION = 11


def fetch_body(session_id, epoch, partitions, max_wait_ms=0):
    """A consumer's Fetch v11 of ``partitions`` ({(topic, partition): offset}), answered at once when
    ``max_wait_ms`` is 0, else parked until data comes or the wait runs out."""
    topics = {}
    for (topic, index), offset in sorted(partitions.items()):
        topics.setdefault(topic, []).append(
            {
                "partition": index,
                "current_leader_epoch": -1,
                "fetch_offset": offset,
                "log_start_offset": -1,
                "partition_max_bytes": 1048576,
            }
        )
    return {
        "replica_id": -1,
        "max_wait_ms": max_wait_ms,
        "min_bytes": 1,
        "max_bytes": 10485760,
        "isolation_level": 0,
        "session_id": session_id,
        "session_epoch": epoch,
        "forgotten_topics_data": [],
        "rack_id": "",
        "topics": [{"topic": topic, "partitions": parts} for topic, parts in topics.items()],
    }


def _read(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        data += chunk
    return data


def exchange(sock, body, correlation_id):
    """(request bytes, response bytes, response) of one Fetch, frames' 4-byte size prefixes included."""
    payload = encode_request(FETCH, FETCH_VERSION, correlation_id, "idle-fetch-bench", body)
    sock.sendall(struct.pack(">i", len(payload)) + payload)
    frame = _read(sock, struct.unpack(">i", _read(sock, 4))[0])
    return len(payload) + 4, len(frame) + 4, decode_response(FETCH, FETCH_VERSION, frame)[1]


def fetch_sizes(broker, partitions):
    """Idle Fetch sizes for the partitions a broker leads: full (sessionless) and incremental (in a session)."""
    with socket.create_connection((broker.host, broker.port), timeout=60) as conn:
        out = {"full": exchange(conn, fetch_body(0, -1, partitions), 1)[:2]}
        _, _, opened = exchange(conn, fetch_body(0, 0, partitions), 2)
        session_id = opened["session_id"]
        if session_id == 0:
            out["incremental"] = None  # this broker has no fetch sessions
        else:
            request_size, response_size, answer = exchange(conn, fetch_body(session_id, 1, {}), 3)
            assert answer["error_code"] == 0, answer
            out["incremental"] = (request_size, response_size)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--replication-factor", type=int, default=3)
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds to wait after full ISRs")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU sampling window")
    parser.add_argument("--samples", type=int, default=2, help="CPU samples, one after the other")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    topic = "idle"
    partitions = [(topic, p) for p in range(args.partitions)]
    data_dir = tempfile.mkdtemp(prefix="kz-idle-")
    cluster = LocalCluster(
        data_dir, brokers=args.brokers, zk_port=free_port(), broker_ports=[free_port() for _ in range(args.brokers)]
    )
    print(
        "brokers run the code in %s; %d partitions, RF %d, %d brokers"
        % (
            os.environ.get("PYTHONPATH") or Path(kafka_zk.__file__).parent.parent,
            args.partitions,
            args.replication_factor,
            args.brokers,
        )
    )
    view = None
    try:
        cluster.start(timeout=args.timeout)
        view = ZkView(cluster.zk_connect, partitions)
        start = time.monotonic()
        create_topics(cluster, [topic], args.partitions, args.replication_factor, args.timeout)
        wait_until(lambda: all(s is not None and s[0] >= 0 for s in view.states().values()), args.timeout, "leaders")
        full_isr(view, args.replication_factor, args.timeout)
        print("created, all ISRs full in %.1fs; settling %.0fs" % (time.monotonic() - start, args.settle))
        time.sleep(args.settle)
        for _sample in range(args.samples):
            cpu = idle_cpu(cluster, args.seconds)
            print(
                "idle CPU %% of a core over %.0fs, per broker: %s (mean %.1f)"
                % (args.seconds, " ".join("%.1f" % c for c in cpu), sum(cpu) / len(cpu))
            )
        print("RSS MB per broker: %s" % " ".join("%.0f" % rss_mb(b.pid()) for b in cluster.brokers))
        states = view.states()
        leader_id = max(
            (b.broker_id for b in cluster.brokers), key=lambda b: sum(1 for s in states.values() if s and s[0] == b)
        )
        led = {tp: 0 for tp, s in states.items() if s and s[0] == leader_id}
        sizes = fetch_sizes(cluster.broker(leader_id), led)
        print(
            "idle Fetch v%d of the %d partitions broker %d leads: sessionless full request %d B, response %d B"
            % (FETCH_VERSION, len(led), leader_id, *sizes["full"])
        )
        if sizes["incremental"]:
            print("    incremental (in a fetch session) request %d B, response %d B" % sizes["incremental"])
        else:
            print("    no fetch session: every idle fetch is a full one")
    finally:
        if view is not None:
            view.close()
        cluster.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
