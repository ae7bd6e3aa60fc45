"""AddOffsetsToTxn (key 25), versions 0-1: add a group's offsets topic to a transaction."""

from kafka_zk.protocol.schema import Field, Schema

API_KEY = 25
NAME = "AddOffsetsToTxn"

REQUEST = Schema(
    "AddOffsetsToTxnRequest",
    [
        Field("transactional_id", "string"),
        Field("producer_id", "int64"),
        Field("producer_epoch", "int16"),
        Field("group_id", "string"),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "AddOffsetsToTxnResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16"),
    ],
    valid_versions="0-1",
)
