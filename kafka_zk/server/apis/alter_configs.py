"""AlterConfigs (key 33): replace a topic's config overrides (every override not named is removed)."""

from twisted.internet import defer

API_KEY = 33


@defer.inlineCallbacks
def handle(request, *, admin):
    resources = request.body["resources"]
    changes = [(resource["resource_type"], resource["resource_name"],
                lambda current, entries=resource["configs"]: {entry["name"]: entry["value"] for entry in entries
                                                              if entry["value"] is not None})
               for resource in resources]
    outcomes = yield admin.alter_configs(changes, request.body["validate_only"])
    return {"throttle_time_ms": 0, "responses": [
        {"error_code": code, "error_message": message, "resource_type": resource["resource_type"],
         "resource_name": resource["resource_name"]} for resource, (code, message) in zip(resources, outcomes)]}
