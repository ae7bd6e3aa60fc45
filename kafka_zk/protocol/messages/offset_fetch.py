"""OffsetFetch (key 9), versions 0-7 (flexible from 6): read a consumer group's committed offsets."""

from kafka_zk.protocol.schema import Array, Field, Schema

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
