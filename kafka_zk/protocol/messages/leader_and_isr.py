"""LeaderAndIsr (key 4), versions 0-4 (flexible from 4): the controller tells a broker its roles.

v0-1 list partition states flat, each carrying its topic name (``ungrouped_partition_states``);
v2+ group them under ``topic_states``.
"""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 4
NAME = "LeaderAndIsr"

PARTITION_STATE = [
    Field("topic_name", "string", "0-1"),
    Field("partition_index", "int32"),
    Field("controller_epoch", "int32"),
    Field("leader", "int32"),
    Field("leader_epoch", "int32"),
    Field("isr", Array("int32")),
    Field("zk_version", "int32"),
    Field("replicas", Array("int32")),
    Field("adding_replicas", Array("int32"), "3+"),
    Field("removing_replicas", Array("int32"), "3+"),
    Field("is_new", "bool", "1+"),
]

REQUEST = Schema(
    "LeaderAndIsrRequest",
    [
        Field("controller_id", "int32"),
        Field("controller_epoch", "int32"),
        Field("broker_epoch", "int64", "2+", default=-1),
        Field("ungrouped_partition_states", Array(PARTITION_STATE), "0-1"),
        Field(
            "topic_states",
            Array(
                [
                    Field("topic_name", "string", "2+"),
                    Field("partition_states", Array(PARTITION_STATE), "2+"),
                ]
            ),
            "2+",
        ),
        Field(
            "live_leaders",
            Array(
                [
                    Field("broker_id", "int32"),
                    Field("host_name", "string"),
                    Field("port", "int32"),
                ]
            ),
        ),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)

RESPONSE = Schema(
    "LeaderAndIsrResponse",
    [
        Field("error_code", "int16"),
        Field(
            "partition_errors",
            Array(
                [
                    Field("topic_name", "string"),
                    Field("partition_index", "int32"),
                    Field("error_code", "int16"),
                ]
            ),
        ),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error, and again for every partition whose state the request carried."""
    if version >= 2:
        states = [(topic["topic_name"], state) for topic in body["topic_states"] for state in topic["partition_states"]]
    else:
        states = [(state["topic_name"], state) for state in body["ungrouped_partition_states"]]
    return {
        "error_code": error_code,
        "partition_errors": [
            {"topic_name": name, "partition_index": state["partition_index"], "error_code": error_code}
            for name, state in states
        ],
    }
