"""Strict messages for handlers called in-process: every API module's ``handle`` wrapped so that its answer, when
the request says which API and version it is, goes through the strict check even when the test never encodes
it (handler-level tests read the body dict). Installed by tests/conftest.py for the whole suite."""

import functools

from twisted.internet import defer

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.server import apis


def _checked(handle, api_key):
    @functools.wraps(handle)
    def handle_checked(request, *args, **kwargs):
        outcome = handle(request, *args, **kwargs)
        version = getattr(request, "api_version", None)
        if getattr(request, "api_key", api_key) != api_key or not isinstance(version, int):
            return outcome
        if isinstance(outcome, defer.Deferred):
            return outcome.addCallback(_check, api_key, version)
        return _check(outcome, api_key, version)

    handle_checked.strict_messages = True
    return handle_checked


def _check(body, api_key, version):
    if isinstance(body, dict) and version in API_SPECS[api_key].response.valid_versions:
        API_SPECS[api_key].response.check_strictly(body, version)
    return body


def check_handlers_strictly():
    for module in apis.HANDLER_MODULES:
        if not getattr(module.handle, "strict_messages", False):
            module.handle = _checked(module.handle, module.API_KEY)
        apis.HANDLERS[module.API_KEY] = module.handle
