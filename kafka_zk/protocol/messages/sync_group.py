"""SyncGroup (key 14), versions 0-5 (flexible from 4): the leader hands out partition assignments."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 14
NAME = "SyncGroup"

REQUEST = Schema(
    "SyncGroupRequest",
    [
        Field("group_id", "string"),
        Field("generation_id", "int32"),
        Field("member_id", "string"),
        Field("group_instance_id", "string", "3+", nullable_versions="3+", default=None),
        Field("protocol_type", "string", "5+", nullable_versions="5+", default=None),
        Field("protocol_name", "string", "5+", nullable_versions="5+", default=None),
        Field(
            "assignments",
            Array(
                [
                    Field("member_id", "string"),
                    Field("assignment", "bytes"),
                ]
            ),
        ),
    ],
    valid_versions="0-5",
    flexible_versions="4+",
)

RESPONSE = Schema(
    "SyncGroupResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field("error_code", "int16"),
        Field("protocol_type", "string", "5+", nullable_versions="5+", default=None),
        Field("protocol_name", "string", "5+", nullable_versions="5+", default=None),
        Field("assignment", "bytes"),
    ],
    valid_versions="0-5",
    flexible_versions="4+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no assignment."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "protocol_type": None,
        "protocol_name": None,
        "assignment": b"",
    }
