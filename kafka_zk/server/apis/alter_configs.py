"""AlterConfigs (key 33): replace a topic's config overrides (every override not named is removed)."""

from twisted.internet import defer

from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import CONFIG_RESOURCE_BROKER_LOGGER, config_resource_error

API_KEY = 33


@defer.inlineCallbacks
def handle(request, *, admin, authorizer=None):
    resources = request.body["resources"]
    # Broker-logger resources are refused as invalid whoever asks (AlterConfigs does not support them).
    denied = [
        None
        if resource["resource_type"] == CONFIG_RESOURCE_BROKER_LOGGER
        else config_resource_error(
            authorizer, request, AclOperation.ALTER_CONFIGS, resource["resource_type"], resource["resource_name"]
        )
        for resource in resources
    ]
    changes = [
        (
            resource["resource_type"],
            resource["resource_name"],
            lambda level, entries=resource["configs"]: {
                entry["name"]: entry["value"] for entry in entries if entry["value"] is not None
            },
        )
        for resource, error in zip(resources, denied)
        if error is None
    ]
    altered = iter((yield admin.alter_configs(changes, request.body["validate_only"])))
    outcomes = [next(altered) if error is None else (error, None) for error in denied]
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
