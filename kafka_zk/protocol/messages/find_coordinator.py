"""FindCoordinator (key 10), versions 0-3 (flexible from 3): locate a group or transaction coordinator."""

from kafka_zk.protocol.schema import Field, Schema

API_KEY = 10
NAME = "FindCoordinator"

KEY_TYPE_GROUP = 0
KEY_TYPE_TRANSACTION = 1

REQUEST = Schema(
    "FindCoordinatorRequest",
    [
        Field("key", "string"),
        Field("key_type", "int8", "1+", default=0),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)

RESPONSE = Schema(
    "FindCoordinatorResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field("error_code", "int16"),
        Field("error_message", "string", "1+", nullable_versions="1+"),
        Field("node_id", "int32"),
        Field("host", "string"),
        Field("port", "int32"),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)
