"""ElectLeaders (key 43), versions 0-2 (flexible from 2): run preferred or unclean elections."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 43
NAME = "ElectLeaders"

ELECTION_PREFERRED = 0
ELECTION_UNCLEAN = 1

# A null topic_partitions list means every partition.
REQUEST = Schema(
    "ElectLeadersRequest",
    [
        Field("election_type", "int8", "1+"),
        Field(
            "topic_partitions",
            Array(
                [
                    Field("topic", "string"),
                    Field("partition_id", Array("int32")),
                ]
            ),
            nullable_versions="0+",
        ),
        Field("timeout_ms", "int32", default=60000),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "ElectLeadersResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16", "1+"),
        Field(
            "replica_election_results",
            Array(
                [
                    Field("topic", "string"),
                    Field(
                        "partition_result",
                        Array(
                            [
                                Field("partition_id", "int32"),
                                Field("error_code", "int16"),
                                Field("error_message", "string", nullable_versions="0+"),
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
    """The error (v1+), and again with its message for every partition named (none when all were asked)."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "replica_election_results": [
            {
                "topic": topic["topic"],
                "partition_result": [
                    {"partition_id": index, "error_code": error_code, "error_message": message}
                    for index in topic["partition_id"]
                ],
            }
            for topic in body["topic_partitions"] or []
        ],
    }
