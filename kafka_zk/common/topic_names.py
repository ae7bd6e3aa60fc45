"""Topic name rules: legal characters, length, and the '.'/'_' collision Kafka forbids."""

import re

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
INTERNAL_TOPICS = ("__consumer_offsets", "__transaction_state")


class InvalidTopicName(ValueError):
    pass


def validate_topic_name(name):
    if not name:
        raise InvalidTopicName("Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise InvalidTopicName('Topic name cannot be "." or ".."')
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicName(
            "Topic name is illegal, it can't be longer than %d characters, topic name: %s" % (MAX_NAME_LENGTH, name)
        )
    if not _LEGAL.match(name):
        raise InvalidTopicName(
            'Topic name "%s" is illegal, it contains a character other than ASCII '
            "alphanumerics, '.', '_' and '-'" % name
        )


def is_valid_topic_partition(topic, partition):
    """Whether (topic, partition) can name a log directory `<topic>-<partition>`."""
    if partition < 0:
        return False
    try:
        validate_topic_name(topic)
    except InvalidTopicName:
        return False
    return True


def collides(name, existing):
    """The existing topic that differs from name only by '.' versus '_', if any."""
    key = name.replace(".", "_")
    for other in existing:
        if other != name and other.replace(".", "_") == key:
            return other
    return None
