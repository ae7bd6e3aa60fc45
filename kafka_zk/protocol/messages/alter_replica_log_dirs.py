"""AlterReplicaLogDirs (key 34), versions 0-1: move replicas between a broker's log dirs."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 34
NAME = "AlterReplicaLogDirs"

REQUEST = Schema(
    "AlterReplicaLogDirsRequest",
    [
        Field(
            "dirs",
            Array(
                [
                    Field("path", "string"),
                    Field(
                        "topics",
                        Array(
                            [
                                Field("name", "string"),
                                Field("partitions", Array("int32")),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "AlterReplicaLogDirsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("topic_name", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("error_code", "int16"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-1",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named (whatever its directory), with the error, by topic."""
    partitions_by_topic: dict[str, list[int]] = {}
    for directory in body["dirs"]:
        for topic in directory["topics"]:
            partitions_by_topic.setdefault(topic["name"], []).extend(topic["partitions"])
    return {
        "throttle_time_ms": 0,
        "results": [
            {
                "topic_name": name,
                "partitions": [{"partition_index": index, "error_code": error_code} for index in indexes],
            }
            for name, indexes in partitions_by_topic.items()
        ],
    }
