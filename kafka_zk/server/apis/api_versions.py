"""ApiVersions (key 18): the versions of every API this broker serves."""

from kafka_zk.protocol.errors import Errors

API_KEY = 18


def handler(supported_versions):
    """The ApiVersions handler: it answers the [(api key, min version, max version)] ``supported_versions()`` lists,
    a function the handler registry hands over (the registry imports this module, so this module cannot import it)."""

    def handle(request):
        return {
            "error_code": Errors.NONE,
            "api_keys": [
                {"api_key": key, "min_version": low, "max_version": high} for key, low, high in supported_versions()
            ],
            "throttle_time_ms": 0,
        }

    return handle
