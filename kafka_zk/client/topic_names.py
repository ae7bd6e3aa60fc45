"""Topic name rules shared by admin paths: legality, '.'/'_' collisions, internal topics, include-list regexes."""

import re

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")


class InvalidTopicError(ValueError):
    """A topic name Kafka would reject (InvalidTopicException)."""


def validate_topic_name(name):
    """Raise InvalidTopicError with Kafka's wording if ``name`` is not a legal topic name."""
    if not name:
        raise InvalidTopicError("Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise InvalidTopicError('Topic name cannot be "." or ".."')
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicError("Topic name is illegal, it can't be longer than %d characters, topic name: %s"
                                % (MAX_NAME_LENGTH, name))
    if not _LEGAL.fullmatch(name):
        raise InvalidTopicError('Topic name "%s" is illegal, it contains a character other than '
                                "ASCII alphanumerics, '.', '_' and '-'" % name)


def has_collision_chars(name):
    """Names with '.' or '_' can collide in metric names ('a.b' and 'a_b')."""
    return "." in name or "_" in name


def collides(first, second):
    return first.replace(".", "_") == second.replace(".", "_")


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
    return [t for t in topics
            if (pattern is None or pattern.fullmatch(t)) and not (exclude_internal and is_internal(t))]
