"""DeleteGroups (key 42), versions 0-2 (flexible from 2): delete empty consumer groups."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 42
NAME = "DeleteGroups"

REQUEST = Schema(
    "DeleteGroupsRequest",
    [
        Field("groups_names", Array("string")),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "DeleteGroupsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("group_id", "string"),
                    Field("error_code", "int16"),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every group the request named, with the error."""
    return {
        "throttle_time_ms": 0,
        "results": [{"group_id": group_id, "error_code": error_code} for group_id in body["groups_names"]],
    }
