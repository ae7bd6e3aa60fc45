"""DescribeAcls (key 29), versions 0-2 (flexible from 2): list ACLs matching a filter."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 29
NAME = "DescribeAcls"

# Pattern type 3 is LITERAL, the only kind before v1.
REQUEST = Schema(
    "DescribeAclsRequest",
    [
        Field("resource_type_filter", "int8"),
        Field("resource_name_filter", "string", nullable_versions="0+"),
        Field("pattern_type_filter", "int8", "1+", default=3),
        Field("principal_filter", "string", nullable_versions="0+"),
        Field("host_filter", "string", nullable_versions="0+"),
        Field("operation", "int8"),
        Field("permission_type", "int8"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "DescribeAclsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16"),
        Field("error_message", "string", nullable_versions="0+"),
        Field(
            "resources",
            Array(
                [
                    Field("resource_type", "int8"),
                    Field("resource_name", "string"),
                    Field("pattern_type", "int8", "1+", default=3),
                    Field(
                        "acls",
                        Array(
                            [
                                Field("principal", "string"),
                                Field("host", "string"),
                                Field("operation", "int8"),
                                Field("permission_type", "int8"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error with its message and no ACLs."""
    return {"throttle_time_ms": 0, "error_code": error_code, "error_message": message, "resources": []}
