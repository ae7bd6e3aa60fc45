"""DescribeGroups (key 15), versions 0-5 (flexible from 5): state and members of consumer groups."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 15
NAME = "DescribeGroups"

REQUEST = Schema(
    "DescribeGroupsRequest",
    [
        Field("groups", Array("string")),
        Field("include_authorized_operations", "bool", "3+"),
    ],
    valid_versions="0-5",
    flexible_versions="5+",
)

RESPONSE = Schema(
    "DescribeGroupsResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field(
            "groups",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("group_id", "string"),
                    Field("group_state", "string"),
                    Field("protocol_type", "string"),
                    Field("protocol_data", "string"),
                    Field(
                        "members",
                        Array(
                            [
                                Field("member_id", "string"),
                                Field("group_instance_id", "string", "4+", nullable_versions="4+", default=None),
                                Field("client_id", "string"),
                                Field("client_host", "string"),
                                Field("member_metadata", "bytes"),
                                Field("member_assignment", "bytes"),
                            ]
                        ),
                    ),
                    Field("authorized_operations", "int32", "3+", default=-2147483648),
                ]
            ),
        ),
    ],
    valid_versions="0-5",
    flexible_versions="5+",
)

# Unset authorized-operations bitfields carry the int32 minimum.
AUTHORIZED_OPERATIONS_OMITTED = -2147483648


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every group the request named, with the error and nothing else known."""
    return {
        "throttle_time_ms": 0,
        "groups": [
            {
                "error_code": error_code,
                "group_id": group_id,
                "group_state": "",
                "protocol_type": "",
                "protocol_data": "",
                "members": [],
                "authorized_operations": AUTHORIZED_OPERATIONS_OMITTED,
            }
            for group_id in body["groups"]
        ],
    }
