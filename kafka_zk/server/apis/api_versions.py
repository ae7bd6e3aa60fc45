"""ApiVersions (key 18): the versions of every API this broker serves."""

import re

from kafka_zk.protocol.errors import Errors

API_KEY = 18
# What ApiVersions v3+ accepts as client_software_name and client_software_version (KIP-511).
SOFTWARE_NAME_OR_VERSION = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def names_its_software(request):
    """Whether the request may be answered: from v3 on, both software fields must match the pattern."""
    body = request.body
    return request.api_version < 3 or all(
        SOFTWARE_NAME_OR_VERSION.fullmatch(body.get(field) or "")
        for field in ("client_software_name", "client_software_version")
    )


def handler(supported_versions):
    """The ApiVersions handler: it answers the [(api key, min version, max version)] ``supported_versions()`` lists,
    a function the handler registry hands over (the registry imports this module, so this module cannot import it)."""

    def handle(request):
        if not names_its_software(request):
            return {"error_code": Errors.INVALID_REQUEST, "api_keys": [], "throttle_time_ms": 0}
        return {
            "error_code": Errors.NONE,
            "api_keys": [
                {"api_key": key, "min_version": low, "max_version": high} for key, low, high in supported_versions()
            ],
            "throttle_time_ms": 0,
        }

    return handle
