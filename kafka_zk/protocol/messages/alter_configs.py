"""AlterConfigs (key 33), versions 0-1: replace the whole configuration of resources."""

from kafka_zk.protocol.schema import Array, Field, Schema

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
