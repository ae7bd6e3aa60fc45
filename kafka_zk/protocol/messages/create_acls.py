"""CreateAcls (key 30), versions 0-2 (flexible from 2): add ACL bindings."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 30
NAME = "CreateAcls"

REQUEST = Schema(
    "CreateAclsRequest",
    [
        Field(
            "creations",
            Array(
                [
                    Field("resource_type", "int8"),
                    Field("resource_name", "string"),
                    Field("resource_pattern_type", "int8", "1+", default=3),
                    Field("principal", "string"),
                    Field("host", "string"),
                    Field("operation", "int8"),
                    Field("permission_type", "int8"),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "CreateAclsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("error_message", "string", nullable_versions="0+"),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every creation the request asked for, with the error and its message."""
    return {
        "throttle_time_ms": 0,
        "results": [{"error_code": error_code, "error_message": message} for _ in body["creations"]],
    }
