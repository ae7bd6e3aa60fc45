"""DeleteAcls (key 31), versions 0-2 (flexible from 2): remove ACL bindings matching filters."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 31
NAME = "DeleteAcls"

REQUEST = Schema(
    "DeleteAclsRequest",
    [
        Field(
            "filters",
            Array(
                [
                    Field("resource_type_filter", "int8"),
                    Field("resource_name_filter", "string", nullable_versions="0+"),
                    Field("pattern_type_filter", "int8", "1+", default=3),
                    Field("principal_filter", "string", nullable_versions="0+"),
                    Field("host_filter", "string", nullable_versions="0+"),
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
    "DeleteAclsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "filter_results",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("error_message", "string", nullable_versions="0+"),
                    Field(
                        "matching_acls",
                        Array(
                            [
                                Field("error_code", "int16"),
                                Field("error_message", "string", nullable_versions="0+"),
                                Field("resource_type", "int8"),
                                Field("resource_name", "string"),
                                Field("pattern_type", "int8", "1+", default=3),
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
    """Every filter the request carried, with the error, its message and no matches."""
    return {
        "throttle_time_ms": 0,
        "filter_results": [
            {"error_code": error_code, "error_message": message, "matching_acls": []} for _ in body["filters"]
        ],
    }
