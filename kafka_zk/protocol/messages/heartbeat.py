"""Heartbeat (key 12), versions 0-4 (flexible from 4): a group member proves it is alive."""

from kafka_zk.protocol.schema import Body, Field, Schema

API_KEY = 12
NAME = "Heartbeat"

REQUEST = Schema(
    "HeartbeatRequest",
    [
        Field("group_id", "string"),
        Field("generation_id", "int32"),
        Field("member_id", "string"),
        Field("group_instance_id", "string", "3+", nullable_versions="3+", default=None),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)

RESPONSE = Schema(
    "HeartbeatResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field("error_code", "int16"),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error alone."""
    return {"throttle_time_ms": 0, "error_code": error_code}
