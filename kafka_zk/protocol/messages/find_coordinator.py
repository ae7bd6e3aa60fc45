"""FindCoordinator (key 10), versions 0-3 (flexible from 3): locate a group or transaction coordinator."""

from kafka_zk.protocol.schema import Body, Field, Schema

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


# Kafka 2.5's own descriptions of the errors its error responses carry here (FindCoordinator sends the error's
# description, not the exception's message).
KAFKA_ERROR_DESCRIPTIONS = {
    -1: "The server experienced an unexpected error when processing the request.",
    34: "Request is not valid given the current SASL state.",
}


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error, no coordinator, and (v1+) the error's own description, as Kafka words it."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "error_message": KAFKA_ERROR_DESCRIPTIONS.get(error_code),
        "node_id": -1,
        "host": "",
        "port": -1,
    }
