"""JoinGroup (key 11), versions 0-7 (flexible from 6): a member joins a consumer group."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 11
NAME = "JoinGroup"

REQUEST = Schema(
    "JoinGroupRequest",
    [
        Field("group_id", "string"),
        Field("session_timeout_ms", "int32"),
        # Without a rebalance timeout (v0) the session timeout stands in for it.
        Field("rebalance_timeout_ms", "int32", "1+", default=-1),
        Field("member_id", "string"),
        Field("group_instance_id", "string", "5+", nullable_versions="5+", default=None),
        Field("protocol_type", "string"),
        Field(
            "protocols",
            Array(
                [
                    Field("name", "string"),
                    Field("metadata", "bytes"),
                ]
            ),
        ),
    ],
    valid_versions="0-7",
    flexible_versions="6+",
)

RESPONSE = Schema(
    "JoinGroupResponse",
    [
        Field("throttle_time_ms", "int32", "2+"),
        Field("error_code", "int16"),
        Field("generation_id", "int32", default=-1),
        Field("protocol_type", "string", "7+", nullable_versions="7+", default=None),
        Field("protocol_name", "string", nullable_versions="7+"),
        Field("leader", "string"),
        Field("member_id", "string"),
        Field(
            "members",
            Array(
                [
                    Field("member_id", "string"),
                    Field("group_instance_id", "string", "5+", nullable_versions="5+", default=None),
                    Field("metadata", "bytes"),
                ]
            ),
        ),
    ],
    valid_versions="0-7",
    flexible_versions="6+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error, no generation, leader or members; the protocol name unknown (null from v7)."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "generation_id": -1,
        "protocol_type": None,
        "protocol_name": None if version >= 7 else "",
        "leader": "",
        "member_id": "",
        "members": [],
    }
