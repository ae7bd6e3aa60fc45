"""ExpireDelegationToken (key 40), versions 0-2 (flexible from 2): expire a token early."""

from kafka_zk.protocol.schema import Field, Schema

API_KEY = 40
NAME = "ExpireDelegationToken"

REQUEST = Schema(
    "ExpireDelegationTokenRequest",
    [
        Field("hmac", "bytes"),
        Field("expiry_time_period_ms", "int64"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "ExpireDelegationTokenResponse",
    [
        Field("error_code", "int16"),
        Field("expiry_timestamp_ms", "int64"),
        Field("throttle_time_ms", "int32"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)
