"""Metadata (key 3), versions 0-9 (flexible from 9): brokers, controller, topics and partitions."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 3
NAME = "Metadata"

# Unset authorized-operations bitfields carry the int32 minimum.
AUTHORIZED_OPERATIONS_OMITTED = -2147483648

# In v0 an empty topic list means every topic; from v1 that is a null list.
REQUEST = Schema(
    "MetadataRequest",
    [
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                ]
            ),
            nullable_versions="1+",
        ),
        Field("allow_auto_topic_creation", "bool", "4+", default=True),
        Field("include_cluster_authorized_operations", "bool", "8+"),
        Field("include_topic_authorized_operations", "bool", "8+"),
    ],
    valid_versions="0-9",
    flexible_versions="9+",
)

RESPONSE = Schema(
    "MetadataResponse",
    [
        Field("throttle_time_ms", "int32", "3+"),
        Field(
            "brokers",
            Array(
                [
                    Field("node_id", "int32"),
                    Field("host", "string"),
                    Field("port", "int32"),
                    Field("rack", "string", "1+", nullable_versions="1+", default=None),
                ]
            ),
        ),
        Field("cluster_id", "string", "2+", nullable_versions="2+", default=None),
        Field("controller_id", "int32", "1+", default=-1),
        Field(
            "topics",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("name", "string"),
                    Field("is_internal", "bool", "1+", default=False),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("error_code", "int16"),
                                Field("partition_index", "int32"),
                                Field("leader_id", "int32"),
                                Field("leader_epoch", "int32", "7+", default=-1),
                                Field("replica_nodes", Array("int32")),
                                Field("isr_nodes", Array("int32")),
                                Field("offline_replicas", Array("int32"), "5+"),
                            ]
                        ),
                    ),
                    Field("topic_authorized_operations", "int32", "8+", default=AUTHORIZED_OPERATIONS_OMITTED),
                ]
            ),
        ),
        Field("cluster_authorized_operations", "int32", "8+", default=AUTHORIZED_OPERATIONS_OMITTED),
    ],
    valid_versions="0-9",
    flexible_versions="9+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every topic the request named with the error, no brokers and no controller."""
    return {
        "throttle_time_ms": 0,
        "brokers": [],
        "cluster_id": None,
        "controller_id": -1,
        "topics": [
            {
                "error_code": error_code,
                "name": topic["name"],
                "is_internal": False,
                "partitions": [],
                "topic_authorized_operations": AUTHORIZED_OPERATIONS_OMITTED,
            }
            for topic in body["topics"] or []
        ],
        "cluster_authorized_operations": AUTHORIZED_OPERATIONS_OMITTED,
    }
