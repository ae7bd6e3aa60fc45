"""Finding a group's coordinator and sending group requests to it, rediscovering it when it moves."""

from kafka_zk.client.errors import KafkaConnectionError, KafkaResponseError, raise_for_error
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import find_coordinator

# Errors that mean "ask FindCoordinator again, then retry".
COORDINATOR_ERRORS = frozenset(
    {
        Errors.COORDINATOR_NOT_AVAILABLE,
        Errors.NOT_COORDINATOR,
        Errors.COORDINATOR_LOAD_IN_PROGRESS,
    }
)


class CoordinatorLocator:
    """Caches the coordinator node of each group of one ClusterClient."""

    def __init__(self, cluster):
        self.cluster = cluster
        self._nodes = {}

    def coordinator(self, group_id):
        """Node id of ``group_id``'s coordinator (FindCoordinator, bounded retries while none is available)."""
        node = self._nodes.get(group_id)
        if node is not None:
            return node

        def attempt():
            _, response = self.cluster.any_request(
                find_coordinator.API_KEY, lambda version: {"key": group_id, "key_type": 0}
            )
            raise_for_error(response["error_code"], response.get("error_message"), "FindCoordinator %s" % group_id)
            return response["node_id"]

        node = self.cluster.with_retries(attempt, [], retriable=COORDINATOR_ERRORS)
        if node not in self.cluster.brokers:
            self.cluster.metadata([])
        self._nodes[group_id] = node
        return node

    def forget(self, group_id):
        self._nodes.pop(group_id, None)

    def request(self, group_id, api_key, body, error_of=lambda response: response.get("error_code", 0), timeout=None):
        """Send ``body`` to the coordinator; a coordinator error (from ``error_of(response)``) or a lost
        connection forgets the coordinator and retries (bounded). Returns the response."""

        def attempt():
            node = self.coordinator(group_id)
            try:
                response = self.cluster.request(node, api_key, body, timeout=timeout)
            except KafkaConnectionError:
                self.forget(group_id)
                raise
            error = Errors.from_code(error_of(response) or 0)
            if error in COORDINATOR_ERRORS:
                self.forget(group_id)
                raise KafkaResponseError(error, context=group_id)
            return response

        return self.cluster.with_retries(attempt, [], retriable=COORDINATOR_ERRORS)
