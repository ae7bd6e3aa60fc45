"""LeaveGroup (key 13), versions 0-4 (flexible from 4): members leave a group (batched from v3)."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 13
NAME = "LeaveGroup"

REQUEST = Schema(
    "LeaveGroupRequest",
    [
        Field("group_id", "string"),
        Field("member_id", "string", "0-2"),
        Field(
            "members",
            Array(
                [
                    Field("member_id", "string", "3+"),
                    Field("group_instance_id", "string", "3+", nullable_versions="3+", default=None),
                ]
            ),
            "3+",
        ),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)

RESPONSE = Schema(
    "LeaveGroupResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field("error_code", "int16"),
        Field(
            "members",
            Array(
                [
                    Field("member_id", "string", "3+"),
                    Field("group_instance_id", "string", "3+", nullable_versions="3+"),
                    Field("error_code", "int16", "3+"),
                ]
            ),
            "3+",
        ),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no members."""
    return {"throttle_time_ms": 0, "error_code": error_code, "members": []}
