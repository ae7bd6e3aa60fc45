"""IncrementalAlterConfigs (key 44), versions 0-1 (flexible from 1): set/delete/append config keys."""

from kafka_zk.protocol.messages import alter_configs
from kafka_zk.protocol.schema import Array, Field, Schema

API_KEY = 44
NAME = "IncrementalAlterConfigs"

OP_SET = 0
OP_DELETE = 1
OP_APPEND = 2
OP_SUBTRACT = 3

REQUEST = Schema(
    "IncrementalAlterConfigsRequest",
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
                                Field("config_operation", "int8"),
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
    flexible_versions="1+",
)

RESPONSE = Schema(
    "IncrementalAlterConfigsResponse",
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
    flexible_versions="1+",
)


# Its answer has AlterConfigs' shape: every resource the request named, with the error and its message.
error_response = alter_configs.error_response
