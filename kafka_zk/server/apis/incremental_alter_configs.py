"""IncrementalAlterConfigs (key 44): set, delete, append to or subtract from topic, broker and logger configs."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.admin_manager import ConfigRequestError
from kafka_zk.server.apis.authorization import config_resource_error
from kafka_zk.server.config.broker_loggers import alter_logger_levels

API_KEY = 44
BROKER_LOGGER = 8
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def apply_operations(level, entries):
    """A resource's overrides after the entries' operations on its admin_manager.ConfigLevel. APPEND and SUBTRACT
    work on a list config's value in force (its default when nothing sets it, as Kafka does from 2.6 on)."""
    names = [entry["name"] for entry in entries]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ConfigRequestError("Error due to duplicate config keys : %s" % ",".join(duplicates))
    updated = dict(level.overrides)
    for entry in entries:
        name, operation, value = entry["name"], entry["config_operation"], entry["value"]
        if operation == SET:
            updated[name] = value
        elif operation == DELETE:
            updated.pop(name, None)
        elif operation in (APPEND, SUBTRACT):
            verb = "append" if operation == APPEND else "subtract"
            if not level.is_list(name):
                raise ConfigRequestError("Config value %s is not allowed for config key: %s" % (verb, name))
            in_force = updated[name] if name in updated else level.inherited_text(name)
            items = [item.strip() for item in (in_force or "").split(",") if item.strip()]
            values = [item.strip() for item in (value or "").split(",") if item.strip()]
            if operation == APPEND:
                items += [item for item in values if item not in items]
            else:
                items = [item for item in items if item not in values]
            updated[name] = ",".join(items)
        else:
            raise ConfigRequestError("Unknown config operation %d for %s" % (operation, name))
    return updated


@defer.inlineCallbacks
def handle(request, *, admin, broker_id, authorizer=None):
    resources = request.body["resources"]
    validate_only = request.body["validate_only"]
    denied = [
        config_resource_error(
            authorizer, request, AclOperation.ALTER_CONFIGS, resource["resource_type"], resource["resource_name"]
        )
        for resource in resources
    ]
    others = [
        resource
        for resource, error in zip(resources, denied)
        if error is None and resource["resource_type"] != BROKER_LOGGER
    ]
    changes = [
        (
            resource["resource_type"],
            resource["resource_name"],
            lambda level, entries=resource["configs"]: apply_operations(level, entries),
        )
        for resource in others
    ]
    altered = iter((yield admin.alter_configs(changes, validate_only)))
    outcomes = [
        (error, None)
        if error is not None
        else _alter_loggers(broker_id, resource, validate_only)
        if resource["resource_type"] == BROKER_LOGGER
        else next(altered)
        for resource, error in zip(resources, denied)
    ]
    return {
        "throttle_time_ms": 0,
        "responses": [
            {
                "error_code": code,
                "error_message": message,
                "resource_type": resource["resource_type"],
                "resource_name": resource["resource_name"],
            }
            for resource, (code, message) in zip(resources, outcomes)
        ],
    }


def _alter_loggers(broker_id, resource, validate_only):
    if resource["resource_name"] != str(broker_id):
        return (
            Errors.INVALID_REQUEST,
            "Unexpected broker id, expected %d, but received %s" % (broker_id, resource["resource_name"]),
        )
    return alter_logger_levels(resource["configs"], validate_only)
