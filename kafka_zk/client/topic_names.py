"""Topic selection for the admin tools (Kafka's include-list regexes); name legality lives in
kafka_zk.common.topic_names."""

import re

from kafka_zk.common.topic_names import (  # noqa: F401  (re-exported for client callers)
    INTERNAL_TOPICS,
    InvalidTopicName,
    collides,
    validate_topic_name,
)


def has_collision_chars(name):
    """Names with '.' or '_' can collide in metric names ('a.b' and 'a_b')."""
    return "." in name or "_" in name


def is_internal(name):
    return name in INTERNAL_TOPICS


def include_list_pattern(spec):
    """Kafka's include-list (whitelist) regex for --topic: commas mean '|', spaces and outer quotes dropped."""
    raw = re.sub(r"[\"']+$", "", re.sub(r"^[\"']+", "", spec.strip().replace(",", "|").replace(" ", "")))
    try:
        return re.compile(raw)
    except re.error:
        raise ValueError("%s is an invalid regex." % spec) from None


def filter_topics(topics, spec, exclude_internal=False):
    """``topics`` whose whole name matches the include-list ``spec`` (all when spec is None), in order."""
    pattern = include_list_pattern(spec) if spec is not None else None
    return [
        t for t in topics if (pattern is None or pattern.fullmatch(t)) and not (exclude_internal and is_internal(t))
    ]
