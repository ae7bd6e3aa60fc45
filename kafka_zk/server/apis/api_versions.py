"""ApiVersions (key 18): the versions of every API this broker serves."""

from kafka_zk.protocol.errors import Errors

API_KEY = 18


def handle(request):
    from kafka_zk.server.apis import supported_versions
    return {
        "error_code": Errors.NONE,
        "api_keys": [{"api_key": key, "min_version": low, "max_version": high}
                     for key, low, high in supported_versions()],
        "throttle_time_ms": 0,
    }
