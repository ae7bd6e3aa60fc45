"""ElectLeaders (key 43): preferred or unclean leader elections run by the controller."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 43

PREFERRED = 0

# The per-partition messages a Kafka 2.5 controller puts in its answer (None: the client's default text).
_STRATEGIES = {PREFERRED: "PreferredReplicaPartitionLeaderElectionStrategy"}
_UNCLEAN_STRATEGY = "OfflinePartitionLeaderElectionStrategy(true)"


def election_error_message(code, election_type, topic, partition):
    """The error message Kafka 2.5 sends with one partition's ElectLeaders result."""
    if code in (Errors.PREFERRED_LEADER_NOT_AVAILABLE, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE):
        return "Failed to elect leader for partition %s-%d under strategy %s" % (
            topic,
            partition,
            _STRATEGIES.get(election_type, _UNCLEAN_STRATEGY),
        )
    if code == Errors.UNKNOWN_TOPIC_OR_PARTITION:
        return "The partition does not exist."
    if code == Errors.ELECTION_NOT_NEEDED:
        return "Leader election not needed for topic partition"
    if code == Errors.INVALID_TOPIC_EXCEPTION:
        return "The topic is being deleted"
    return None


@defer.inlineCallbacks
def handle(request, *, admin, controller, authorizer=None):
    body = request.body
    requested = body["topic_partitions"]
    election_type = body.get("election_type", PREFERRED)
    partitions = (
        None
        if requested is None
        else [(entry["topic"], index) for entry in requested for index in entry["partition_id"]]
    )
    if not cluster_authorized(authorizer, request, AclOperation.ALTER):
        denied = Errors.CLUSTER_AUTHORIZATION_FAILED
        topics = {}
        for topic, index in dict.fromkeys(partitions or []):
            topics.setdefault(topic, []).append({"partition_id": index, "error_code": denied, "error_message": None})
        return {
            "throttle_time_ms": 0,
            "error_code": denied,
            "replica_election_results": [
                {"topic": topic, "partition_result": entries} for topic, entries in topics.items()
            ],
        }
    # A broker that is not the controller answers NOT_CONTROLLER for each named partition (nothing for
    # "all partitions"), with no top-level error, like Kafka 2.5's controller.
    results = yield controller().elect_leaders(election_type, partitions)
    elected = [tp for tp, code in results.items() if code == Errors.NONE]
    if elected:  # Kafka answers once this broker's metadata shows the new leaders, or the request's timeout passed
        late = yield admin.wait_for_leaders(controller().leaders_of(elected), body["timeout_ms"])
        results.update((tp, Errors.REQUEST_TIMED_OUT) for tp in late)
    if partitions is None:  # Kafka answers an election of all partitions with those it elected or failed alone
        results = {tp: code for tp, code in results.items() if code != Errors.ELECTION_NOT_NEEDED}
    topics = {}
    for (topic, index), code in sorted(results.items()):
        topics.setdefault(topic, []).append(
            {
                "partition_id": index,
                "error_code": code,
                "error_message": election_error_message(code, election_type, topic, index),
            }
        )
    return {
        "throttle_time_ms": 0,
        "error_code": Errors.NONE,
        "replica_election_results": [
            {"topic": topic, "partition_result": entries} for topic, entries in topics.items()
        ],
    }
