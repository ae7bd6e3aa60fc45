"""The broker's ZooKeeper client metrics, as Kafka 2.5's ZooKeeperClient names them (``kafka.server``):

- ``type=ZooKeeperClientMetrics,name=ZooKeeperRequestLatencyMs``: a histogram of ZooKeeper request latencies
  (here: each ReactorZkClient call, from the reactor handing it to the ZooKeeper thread pool until its answer);
- ``type=SessionExpireListener``: ZooKeeperSyncConnectsPerSec, ZooKeeperDisconnectsPerSec,
  ZooKeeperExpiresPerSec, ZooKeeperAuthFailuresPerSec, ZooKeeperReadOnlyConnectsPerSec (meters of the session's
  state events) and SessionState.

Kafka's SessionState gauge is a string (ZooKeeper's client state: CONNECTING, CONNECTED, CONNECTEDREADONLY,
AUTH_FAILED, CLOSED), which the JMX exporter cannot export. Here it is one sample per state, labelled ``state``,
1 for the current state and 0 for the others:
``kafka_server_sessionexpirelistener_sessionstate{state="CONNECTED"} 1`` (alert on it being 0).

kazoo reports (KazooState, KeeperState) pairs on its own thread; the caller hands them to on_state on the
reactor thread. Pure code.
"""

from kafka_zk.common.metrics import MetricName

GROUP = "kafka.server"
SESSION_STATES = ("CONNECTING", "CONNECTED", "CONNECTEDREADONLY", "AUTH_FAILED", "CLOSED")
_CONNECTED_STATES = ("CONNECTED", "CONNECTEDREADONLY")


def session_state(kazoo_state, keeper_state):
    """ZooKeeper's client state name for a kazoo state change (kazoo's KazooState, and its client_state then)."""
    if kazoo_state == "CONNECTED":
        return "CONNECTEDREADONLY" if keeper_state == "CONNECTED_RO" else "CONNECTED"
    if kazoo_state == "SUSPENDED":  # kazoo is connecting again, as ZooKeeper's client does after Disconnected
        return "CONNECTING"
    return "AUTH_FAILED" if keeper_state == "AUTH_FAILED" else "CLOSED"


class ZooKeeperClientMetrics:
    def __init__(self, registry):
        self.latency = registry.histogram(GROUP, "ZooKeeperClientMetrics", "ZooKeeperRequestLatencyMs")

        def meter(event):
            return registry.meter(GROUP, "SessionExpireListener", "ZooKeeper%sPerSec" % event)

        self.sync_connects = meter("SyncConnects")
        self.read_only_connects = meter("ReadOnlyConnects")
        self.disconnects = meter("Disconnects")
        self.expires = meter("Expires")
        self.auth_failures = meter("AuthFailures")
        self.state = "CONNECTING"
        self._state_names = [
            (state, MetricName(GROUP, "SessionExpireListener", "SessionState", {"state": state}))
            for state in SESSION_STATES
        ]
        registry.add_collector(self.collect_session_state)

    def on_state(self, kazoo_state, keeper_state):
        """A session state change (on the reactor thread): mark the meter of ZooKeeper's matching event."""
        previous, self.state = self.state, session_state(kazoo_state, keeper_state)
        if self.state == "CONNECTED":
            self.sync_connects.mark()
        elif self.state == "CONNECTEDREADONLY":
            self.read_only_connects.mark()
        elif self.state == "CONNECTING":
            if previous in _CONNECTED_STATES:  # ZooKeeper's Disconnected event; kazoo reconnecting after an
                self.disconnects.mark()  # expiry is a new session connecting, not a disconnect
        elif keeper_state == "EXPIRED_SESSION":
            self.expires.mark()
        elif keeper_state == "AUTH_FAILED":
            self.auth_failures.mark()

    def record_latency(self, started_s, now_s):
        self.latency.update((now_s - started_s) * 1000.0)

    def collect_session_state(self):
        current = self.state
        return [(name, 1 if state == current else 0) for state, name in self._state_names]
