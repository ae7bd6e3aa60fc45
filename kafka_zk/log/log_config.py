"""Per-log settings (LogConfig): Kafka 2.5's broker defaults and topic-level overrides by config name."""

import dataclasses
from collections.abc import Mapping
from typing import Any

_LONG_MAX = 2**63 - 1
_WEEK_MS = 7 * 24 * 60 * 60 * 1000


@dataclasses.dataclass
class LogConfig:
    """Per-log settings; defaults are Kafka 2.5's broker defaults."""

    segment_bytes: int = 1024 * 1024 * 1024
    segment_ms: int = _WEEK_MS
    retention_ms: int = _WEEK_MS
    retention_bytes: int = -1
    index_interval_bytes: int = 4096
    max_index_size: int = 10 * 1024 * 1024
    max_message_bytes: int = 1048588
    cleanup_policy: str = "delete"
    file_delete_delay_ms: int = 60000
    flush_ms: int = _LONG_MAX
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = _LONG_MAX
    delete_retention_ms: int = 86400000
    # What an append to the log is checked against (Kafka's LogConfig holds them too): the leader reads them from
    # the log it appends to, so a config change reaches the append path with the log's new config.
    min_insync_replicas: int = 1
    message_timestamp_type: str = "CreateTime"
    message_timestamp_difference_max_ms: int = _LONG_MAX
    compression_type: str = "producer"

    @property
    def delete_enabled(self) -> bool:
        return "delete" in [p.strip() for p in self.cleanup_policy.split(",")]

    @property
    def compact(self) -> bool:
        return "compact" in [p.strip() for p in self.cleanup_policy.split(",")]

    @property
    def max_segment_ms(self) -> int:
        """segment.ms, lowered to max.compaction.lag.ms for compacted logs (KIP-354)."""
        lag = self.max_compaction_lag_ms
        if 0 < lag < self.segment_ms and self.compact:  # asked at every append: the cheap test first
            return lag
        return self.segment_ms

    def with_overrides(self, props: Mapping[str, str]) -> "LogConfig":
        """A copy with topic-level overrides (``{"retention.ms": "1000", ...}``) applied; others ignored."""
        changes: dict[str, Any] = {}  # field name -> value of that field's type
        for name, value in props.items():
            field = TOPIC_CONFIG_FIELDS.get(name)
            if field is not None:
                if field == "cleanup_policy":
                    changes[field] = value.strip().lower()
                elif field in _TEXT_FIELDS:
                    changes[field] = value.strip()
                elif field == "min_cleanable_dirty_ratio":
                    changes[field] = float(value)
                else:
                    changes[field] = int(value)
        return dataclasses.replace(self, **changes)


TOPIC_CONFIG_FIELDS = {
    "segment.bytes": "segment_bytes",
    "segment.ms": "segment_ms",
    "retention.ms": "retention_ms",
    "retention.bytes": "retention_bytes",
    "index.interval.bytes": "index_interval_bytes",
    "segment.index.bytes": "max_index_size",
    "max.message.bytes": "max_message_bytes",
    "cleanup.policy": "cleanup_policy",
    "file.delete.delay.ms": "file_delete_delay_ms",
    "flush.ms": "flush_ms",
    "min.cleanable.dirty.ratio": "min_cleanable_dirty_ratio",
    "min.compaction.lag.ms": "min_compaction_lag_ms",
    "max.compaction.lag.ms": "max_compaction_lag_ms",
    "delete.retention.ms": "delete_retention_ms",
    "min.insync.replicas": "min_insync_replicas",
    "message.timestamp.type": "message_timestamp_type",
    "message.timestamp.difference.max.ms": "message_timestamp_difference_max_ms",
    "compression.type": "compression_type",
}
_TEXT_FIELDS = frozenset({"message_timestamp_type", "compression_type"})
