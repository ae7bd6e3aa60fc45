"""AddOffsetsToTxn (key 25): add the group's `__consumer_offsets` partition to a transaction."""

from twisted.internet import defer

from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 25


def handle(request, *, group_coordinator, txn_coordinator, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body["transactional_id"]):
        return defer.succeed({"throttle_time_ms": 0, "error_code": Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED})
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        return defer.succeed({"throttle_time_ms": 0, "error_code": Errors.GROUP_AUTHORIZATION_FAILED})
    partition = group_coordinator.manager.partition_for(body["group_id"])
    result = txn_coordinator.handle_add_partitions(
        body["transactional_id"], body["producer_id"], body["producer_epoch"], [(OFFSETS_TOPIC, partition)]
    )
    return result.addCallback(lambda error: {"throttle_time_ms": 0, "error_code": error})
