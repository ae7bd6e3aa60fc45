"""DescribeConfigs (key 32): a topic's effective config with sources, or this broker's config."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import config_resource_error
from kafka_zk.server.config.broker_loggers import logger_levels
from kafka_zk.server.config.dynamic_broker_config import (
    ALL_DYNAMIC_CONFIGS,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    is_sensitive,
)
from kafka_zk.server.config.topic_config import BROKER_SYNONYMS, effective_topic_config, format_config_value

API_KEY = 32
TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8
# ConfigSource ids
DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5
DYNAMIC_BROKER_LOGGER_CONFIG = 6


@defer.inlineCallbacks
def handle(request, *, metadata_cache, zk, dynamic_config, broker_id, authorizer=None):
    results = []
    include_synonyms = request.body.get("include_synonyms", False)
    for resource in request.body["resources"]:
        kind, name, keys = resource["resource_type"], resource["resource_name"], resource["configuration_keys"]
        result = {
            "error_code": Errors.NONE,
            "error_message": None,
            "resource_type": kind,
            "resource_name": name,
            "configs": [],
        }
        denied = config_resource_error(authorizer, request, AclOperation.DESCRIBE_CONFIGS, kind, name)
        if denied is not None:
            result["error_code"] = denied
        elif kind == TOPIC:
            if not metadata_cache.contains_topic(name):
                result["error_code"] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                overrides = yield zk.get_entity_config("topics", name)
                result["configs"] = _topic_configs(dynamic_config, overrides, include_synonyms)
        elif kind == BROKER:
            if name not in ("", str(broker_id)):
                result["error_code"] = Errors.INVALID_REQUEST
                result["error_message"] = "Unexpected broker id, expected %d, but received %s" % (broker_id, name)
            else:
                result["configs"] = _broker_configs(dynamic_config, name, include_synonyms)
        elif kind == BROKER_LOGGER:
            if name != str(broker_id):
                result["error_code"] = Errors.INVALID_REQUEST
                result["error_message"] = "Unexpected broker id, expected %d, but received %s" % (broker_id, name)
            else:
                result["configs"] = [
                    _entry(
                        logger,
                        level,
                        DYNAMIC_BROKER_LOGGER_CONFIG,
                        [{"name": logger, "value": level, "source": DYNAMIC_BROKER_LOGGER_CONFIG}]
                        if include_synonyms
                        else [],
                    )
                    for logger, level in logger_levels().items()
                ]
        else:
            result["error_code"] = Errors.INVALID_REQUEST
            result["error_message"] = "Unsupported resource type %d" % kind
        if keys is not None:
            result["configs"] = [entry for entry in result["configs"] if entry["name"] in keys]
        results.append(result)
    return {"throttle_time_ms": 0, "results": results}


def _entry(name, value, source, synonyms, read_only=False, sensitive=False):
    return {
        "name": name,
        "value": value,
        "read_only": read_only,
        "is_default": source == DEFAULT_CONFIG,
        "config_source": source,
        "is_sensitive": sensitive,
        "synonyms": synonyms,
    }


def _topic_configs(dynamic, overrides, include_synonyms):
    defaults = dynamic.log_config_defaults()
    effective = effective_topic_config(defaults, overrides)
    entries = []
    for name in sorted(effective):
        synonyms = []
        if name in overrides:
            synonyms.append({"name": name, "value": overrides[name], "source": DYNAMIC_TOPIC_CONFIG})
        broker_names = BROKER_SYNONYMS.get(name, [])
        synonyms.extend(
            {"name": synonym, "value": text, "source": level}
            for synonym, text, level in (dynamic.sources(broker_names[0]) if broker_names else [])
        )
        source = synonyms[0]["source"] if synonyms else DEFAULT_CONFIG
        entries.append(_entry(name, format_config_value(effective[name]), source, synonyms if include_synonyms else []))
    return entries


def _broker_configs(dynamic, name, include_synonyms):
    """This broker's configs (name = its id) or the cluster-wide dynamic defaults (name = "")."""
    entries = []
    if name == "":
        for key in sorted(dynamic.cluster_default):
            sensitive = is_sensitive(key)
            value = None if sensitive else dynamic.cluster_default[key]
            synonyms = [
                {"name": synonym, "value": None if sensitive else text, "source": level}
                for synonym, text, level in dynamic.sources(key)
                if level != DYNAMIC_BROKER_CONFIG
            ]
            entries.append(
                _entry(
                    key, value, DYNAMIC_DEFAULT_BROKER_CONFIG, synonyms if include_synonyms else [], sensitive=sensitive
                )
            )
        return entries
    for key in dynamic.all_names():
        sensitive = is_sensitive(key)
        found = [(synonym, None if sensitive else value, source) for synonym, value, source in dynamic.sources(key)]
        own = [value for synonym, value, _ in found if synonym == key]
        value = own[0] if own else None
        source = found[0][2] if found else DEFAULT_CONFIG
        synonyms = [{"name": synonym, "value": text, "source": level} for synonym, text, level in found]
        entries.append(
            _entry(
                key,
                value,
                source,
                synonyms if include_synonyms else [],
                read_only=key not in ALL_DYNAMIC_CONFIGS,
                sensitive=sensitive,
            )
        )
    return entries
