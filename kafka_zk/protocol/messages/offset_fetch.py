"""OffsetFetch (key 9), versions 0-7 (flexible from 6): read a consumer group's committed offsets."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 9
NAME = "OffsetFetch"

# From v2 a null topic list asks for every topic the group has offsets for.
REQUEST = Schema(
    "OffsetFetchRequest",
    [
        Field("group_id", "string"),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field("partition_indexes", Array("int32")),
                ]
            ),
            nullable_versions="2+",
        ),
        Field("require_stable", "bool", "7+", default=False),
    ],
    valid_versions="0-7",
    flexible_versions="6+",
)

RESPONSE = Schema(
    "OffsetFetchResponse",
    [
        Field("throttle_time_ms", "int32", "3+"),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("committed_offset", "int64"),
                                Field("committed_leader_epoch", "int32", "5+", default=-1),
                                Field("metadata", "string", nullable_versions="0+"),
                                Field("error_code", "int16"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
        Field("error_code", "int16", "2+", default=0),
    ],
    valid_versions="0-7",
    flexible_versions="6+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """From v2 the top-level error alone; before, every partition named with the error and no offset."""
    if version >= 2:
        return {"throttle_time_ms": 0, "topics": [], "error_code": error_code}
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "name": topic["name"],
                "partitions": [
                    {
                        "partition_index": index,
                        "committed_offset": -1,
                        "committed_leader_epoch": -1,
                        "metadata": "",
                        "error_code": error_code,
                    }
                    for index in topic["partition_indexes"]
                ],
            }
            for topic in body["topics"]
        ],
        "error_code": 0,
    }
