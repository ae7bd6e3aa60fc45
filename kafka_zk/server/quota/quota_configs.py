"""Client and user quota configs (Kafka's DynamicConfig.Client / DynamicConfig.User): names, validation, SCRAM."""

import re

from kafka_zk.security.scram import DEFAULT_ITERATIONS as DEFAULT_SCRAM_ITERATIONS
from kafka_zk.security.scram import MECHANISMS as SCRAM_MECHANISMS
from kafka_zk.security.scram import credential_from_password, format_credential
from kafka_zk.server.config.kafka_config import ConfigError

LONG_MAX = 9223372036854775807
INT_MAX = 2147483647

# name -> (type, default)
CLIENT_QUOTA_CONFIGS = {
    "producer_byte_rate": ("long", LONG_MAX),
    "consumer_byte_rate": ("long", LONG_MAX),
    "request_percentage": ("double", float(INT_MAX)),
}
USER_CONFIGS = dict(CLIENT_QUOTA_CONFIGS, **{name: ("password", None) for name in SCRAM_MECHANISMS})


class UnknownQuotaConfig(ValueError):
    """A name that is not a config of that entity type (Kafka: a failed requirement)."""


def _scala_set(names):
    return "Set(%s)" % ", ".join(sorted(names))


def validate_quota_configs(entity_type, configs):
    """Validate {name: string} for "clients" or "users" (users may also hold SCRAM credentials)."""
    known = USER_CONFIGS if entity_type == "users" else CLIENT_QUOTA_CONFIGS
    unknown = [name for name in configs if name not in known]
    if unknown:
        raise UnknownQuotaConfig("requirement failed: Unknown Dynamic Configuration: %s." % _scala_set(unknown))
    typed = {}
    for name, raw in configs.items():
        kind = known[name][0]
        text = str(raw).strip()
        try:
            typed[name] = int(text) if kind == "long" else float(text) if kind == "double" else text
        except ValueError:
            raise ConfigError(
                "Invalid value %s for configuration %s: Not a number of type %s" % (raw, name, kind.upper())
            ) from None
    return typed


def scram_credential(mechanism, spec, salt=None):
    """'[iterations=N,]password=P' -> the stored form 'salt=..,stored_key=..,server_key=..,iterations=N'."""
    match = re.fullmatch(r"(?:iterations=([0-9]*),)?password=(.*)", spec)
    if match is None:
        raise ValueError("Invalid credential property %s=%s" % (mechanism, spec))
    iterations = int(match.group(1)) if match.group(1) else DEFAULT_SCRAM_ITERATIONS
    scram_mechanism = SCRAM_MECHANISMS[mechanism]
    if iterations < scram_mechanism.min_iterations:
        raise ValueError(
            "Iterations %d is less than the minimum %d required for %s"
            % (iterations, scram_mechanism.min_iterations, mechanism)
        )
    return format_credential(credential_from_password(scram_mechanism, match.group(2), iterations, salt))
