"""AlterReplicaLogDirs (key 34), versions 0-1: move replicas between a broker's log dirs."""

from kafka_zk.protocol.schema import Array, Field, Schema

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
