"""DescribeConfigs (key 32), versions 0-2: read topic or broker configurations."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

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


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every resource the request named, with the error, its message and no configs."""
    return {
        "throttle_time_ms": 0,
        "results": [
            {
                "error_code": error_code,
                "error_message": message,
                "resource_type": resource["resource_type"],
                "resource_name": resource["resource_name"],
                "configs": [],
            }
            for resource in body["resources"]
        ],
    }
