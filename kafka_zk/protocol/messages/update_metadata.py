"""UpdateMetadata (key 6), versions 0-6 (flexible from 6): the controller's cluster view for a broker.

v0-4 list partition states flat with topic names (``ungrouped_partition_states``); v5+ group them
under ``topic_states``. v0 gives each live broker one host/port; v1+ a list of endpoints.
"""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 6
NAME = "UpdateMetadata"

PARTITION_STATE = [
    Field("topic_name", "string", "0-4"),
    Field("partition_index", "int32"),
    Field("controller_epoch", "int32"),
    Field("leader", "int32"),
    Field("leader_epoch", "int32"),
    Field("isr", Array("int32")),
    Field("zk_version", "int32"),
    Field("replicas", Array("int32")),
    Field("offline_replicas", Array("int32"), "4+"),
]

REQUEST = Schema(
    "UpdateMetadataRequest",
    [
        Field("controller_id", "int32"),
        Field("controller_epoch", "int32"),
        Field("broker_epoch", "int64", "5+", default=-1),
        Field("ungrouped_partition_states", Array(PARTITION_STATE), "0-4"),
        Field(
            "topic_states",
            Array(
                [
                    Field("topic_name", "string", "5+"),
                    Field("partition_states", Array(PARTITION_STATE), "5+"),
                ]
            ),
            "5+",
        ),
        Field(
            "live_brokers",
            Array(
                [
                    Field("id", "int32"),
                    Field("v0_host", "string", "0"),
                    Field("v0_port", "int32", "0"),
                    Field(
                        "endpoints",
                        Array(
                            [
                                Field("port", "int32", "1+"),
                                Field("host", "string", "1+"),
                                Field("listener", "string", "3+"),
                                Field("security_protocol", "int16", "1+"),
                            ]
                        ),
                        "1+",
                    ),
                    Field("rack", "string", "2+", nullable_versions="0+", default=None),
                ]
            ),
        ),
    ],
    valid_versions="0-6",
    flexible_versions="6+",
)

RESPONSE = Schema(
    "UpdateMetadataResponse",
    [
        Field("error_code", "int16"),
    ],
    valid_versions="0-6",
    flexible_versions="6+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error alone."""
    return {"error_code": error_code}
