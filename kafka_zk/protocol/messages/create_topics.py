"""CreateTopics (key 19), versions 0-5 (flexible from 5): create topics, optionally validate only."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 19
NAME = "CreateTopics"

# num_partitions / replication_factor of -1 mean "use the broker default" (v4+) or
# "given by the manual assignments".
REQUEST = Schema(
    "CreateTopicsRequest",
    [
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field("num_partitions", "int32"),
                    Field("replication_factor", "int16"),
                    Field(
                        "assignments",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("broker_ids", Array("int32")),
                            ]
                        ),
                    ),
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
        Field("timeout_ms", "int32", default=60000),
        Field("validate_only", "bool", "1+", default=False),
    ],
    valid_versions="0-5",
    flexible_versions="5+",
)

RESPONSE = Schema(
    "CreateTopicsResponse",
    [
        Field("throttle_time_ms", "int32", "2+"),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field("error_code", "int16"),
                    Field("error_message", "string", "1+", nullable_versions="0+"),
                    Field("topic_config_error_code", "int16", "5+", tagged_versions="5+", tag=0, default=0),
                    Field("num_partitions", "int32", "5+", default=-1),
                    Field("replication_factor", "int16", "5+", default=-1),
                    Field(
                        "configs",
                        Array(
                            [
                                Field("name", "string", "5+"),
                                Field("value", "string", "5+", nullable_versions="5+"),
                                Field("read_only", "bool", "5+"),
                                Field("config_source", "int8", "5+", default=-1),
                                Field("is_sensitive", "bool", "5+"),
                            ]
                        ),
                        "5+",
                        nullable_versions="5+",
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-5",
    flexible_versions="5+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every topic the request named, with the error, its message and nothing created."""
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "name": topic["name"],
                "error_code": error_code,
                "error_message": message,
                "num_partitions": -1,
                "replication_factor": -1,
                "configs": [],
                "topic_config_error_code": 0,
            }
            for topic in body["topics"]
        ],
    }
