"""ListGroups (key 16), versions 0-3 (flexible from 3): the groups a coordinator manages."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 16
NAME = "ListGroups"

REQUEST = Schema("ListGroupsRequest", [], valid_versions="0-3", flexible_versions="3+")

RESPONSE = Schema(
    "ListGroupsResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field("error_code", "int16"),
        Field(
            "groups",
            Array(
                [
                    Field("group_id", "string"),
                    Field("protocol_type", "string"),
                ]
            ),
        ),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no groups."""
    return {"throttle_time_ms": 0, "error_code": error_code, "groups": []}
