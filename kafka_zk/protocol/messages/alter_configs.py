"""AlterConfigs (key 33), versions 0-1: replace the whole configuration of resources."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 33
NAME = "AlterConfigs"

REQUEST = Schema(
    "AlterConfigsRequest",
    [
        Field(
            "resources",
            Array(
                [
                    Field("resource_type", "int8"),
                    Field("resource_name", "string"),
                    Field(
                        "configs",
                        Array(
                            [
                                Field("name", "string"),
                                Field("value", "string", nullable_versions="0+"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
        Field("validate_only", "bool"),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "AlterConfigsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "responses",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("error_message", "string", nullable_versions="0+"),
                    Field("resource_type", "int8"),
                    Field("resource_name", "string"),
                ]
            ),
        ),
    ],
    valid_versions="0-1",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every resource the request named, with the error and its message."""
    return {
        "throttle_time_ms": 0,
        "responses": [
            {
                "error_code": error_code,
                "error_message": message,
                "resource_type": resource["resource_type"],
                "resource_name": resource["resource_name"],
            }
            for resource in body["resources"]
        ],
    }
