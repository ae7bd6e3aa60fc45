"""DescribeConfigs (key 32): a topic's effective config with sources, or this broker's config."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.config import BROKER_CONFIGS
from kafka_zk.server.topic_config import BROKER_SYNONYMS, effective_topic_config, format_config_value

API_KEY = 32
TOPIC = 2
BROKER = 4
# ConfigSource ids
DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5


@defer.inlineCallbacks
def handle(server, request):
    results = []
    include_synonyms = request.body.get("include_synonyms", False)
    for resource in request.body["resources"]:
        kind, name, keys = resource["resource_type"], resource["resource_name"], resource["configuration_keys"]
        result = {"error_code": Errors.NONE, "error_message": None, "resource_type": kind,
                  "resource_name": name, "configs": []}
        if kind == TOPIC:
            if not server.metadata_cache.contains_topic(name):
                result["error_code"] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                overrides = yield server.zk.call("get_entity_config", "topics", name)
                result["configs"] = _topic_configs(server, overrides, include_synonyms)
        elif kind == BROKER:
            if name not in ("", str(server.broker_id)):
                result["error_code"] = Errors.INVALID_REQUEST
                result["error_message"] = "Unexpected broker id, expected %d, but received %s" % (
                    server.broker_id, name)
            else:
                result["configs"] = _broker_configs(server, include_synonyms)
        else:
            result["error_code"] = Errors.INVALID_REQUEST
            result["error_message"] = "Unsupported resource type %d" % kind
        if keys is not None:
            result["configs"] = [entry for entry in result["configs"] if entry["name"] in keys]
        results.append(result)
    return {"throttle_time_ms": 0, "results": results}


def _entry(name, value, source, synonyms):
    return {"name": name, "value": value, "read_only": False, "is_default": source == DEFAULT_CONFIG,
            "config_source": source, "is_sensitive": False, "synonyms": synonyms}


def _topic_configs(server, overrides, include_synonyms):
    defaults = server.config.log_config_defaults()
    effective = effective_topic_config(defaults, overrides)
    originals = server.config.originals
    entries = []
    for name in sorted(effective):
        synonyms = []
        if name in overrides:
            synonyms.append({"name": name, "value": overrides[name], "source": DYNAMIC_TOPIC_CONFIG})
        for broker_name in BROKER_SYNONYMS.get(name, []):
            if broker_name in originals:
                synonyms.append({"name": broker_name, "value": originals[broker_name],
                                 "source": STATIC_BROKER_CONFIG})
        synonyms.append({"name": (BROKER_SYNONYMS.get(name) or [name])[0],
                         "value": format_config_value(defaults[name]), "source": DEFAULT_CONFIG})
        source = synonyms[0]["source"]
        entries.append(_entry(name, format_config_value(effective[name]), source,
                              synonyms if include_synonyms else []))
    return entries


def _broker_configs(server, include_synonyms):
    entries = []
    for key in BROKER_CONFIGS:
        value = server.config.values.get(key.name)
        source = STATIC_BROKER_CONFIG if key.name in server.config.originals else DEFAULT_CONFIG
        text = None if value is None else format_config_value(value)
        synonyms = [{"name": key.name, "value": text, "source": source}] if include_synonyms else []
        entries.append(_entry(key.name, text, source, synonyms))
    return entries
