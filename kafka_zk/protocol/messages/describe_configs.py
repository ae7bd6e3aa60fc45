"""DescribeConfigs (key 32), versions 0-2: read topic or broker configurations."""

from kafka_zk.protocol.schema import Array, Field, Schema

API_KEY = 32
NAME = "DescribeConfigs"

# A null configuration_keys list asks for every key.
REQUEST = Schema(
    "DescribeConfigsRequest",
    [
        Field(
            "resources",
            Array(
                [
                    Field("resource_type", "int8"),
                    Field("resource_name", "string"),
                    Field("configuration_keys", Array("string"), nullable_versions="0+"),
                ]
            ),
        ),
        Field("include_synonyms", "bool", "1+", default=False),
    ],
    valid_versions="0-2",
)

RESPONSE = Schema(
    "DescribeConfigsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("error_message", "string", nullable_versions="0+"),
                    Field("resource_type", "int8"),
                    Field("resource_name", "string"),
                    Field(
                        "configs",
                        Array(
                            [
                                Field("name", "string"),
                                Field("value", "string", nullable_versions="0+"),
                                Field("read_only", "bool"),
                                Field("is_default", "bool", "0"),
                                Field("config_source", "int8", "1+", default=-1),
                                Field("is_sensitive", "bool"),
                                Field(
                                    "synonyms",
                                    Array(
                                        [
                                            Field("name", "string", "1+"),
                                            Field("value", "string", "1+", nullable_versions="0+"),
                                            Field("source", "int8", "1+"),
                                        ]
                                    ),
                                    "1+",
                                ),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
)
