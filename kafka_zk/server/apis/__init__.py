"""The registry of request handlers, one module per API key, and their binding to the broker's collaborators.

Each module's ``handle(request, *, <collaborator>, ...)`` names what it uses as keyword-only parameters, called
after the broker's attribute that provides it (``clock`` is the reactor). ``bind_handlers`` reads those names once,
when the broker starts listening, and binds each. What changes after that moment comes as a function that reads
the current value: ``broker_epoch()`` (set on each registration), ``cluster_id()`` and ``controller()`` (created
once the broker is registered). ApiVersions advertises exactly the registered API keys: its handler is made here,
from ``supported_versions``.
"""

import inspect

from twisted.internet import defer

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.server.apis import (
    add_offsets_to_txn,
    add_partitions_to_txn,
    alter_configs,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    api_versions,
    controlled_shutdown,
    create_acls,
    create_delegation_token,
    create_partitions,
    create_topics,
    delete_acls,
    delete_groups,
    delete_records,
    delete_topics,
    describe_acls,
    describe_configs,
    describe_delegation_token,
    describe_groups,
    describe_log_dirs,
    elect_leaders,
    end_txn,
    expire_delegation_token,
    fetch,
    find_coordinator,
    heartbeat,
    incremental_alter_configs,
    init_producer_id,
    join_group,
    leader_and_isr,
    leave_group,
    list_groups,
    list_offsets,
    list_partition_reassignments,
    metadata,
    offset_commit,
    offset_delete,
    offset_fetch,
    offset_for_leader_epoch,
    produce,
    renew_delegation_token,
    sasl_authenticate,
    sasl_handshake,
    stop_replica,
    sync_group,
    txn_offset_commit,
    update_metadata,
    write_txn_markers,
)

HANDLER_MODULES = [
    produce,
    fetch,
    list_offsets,
    metadata,
    leader_and_isr,
    stop_replica,
    update_metadata,
    controlled_shutdown,
    find_coordinator,
    create_topics,
    delete_topics,
    init_producer_id,
    offset_for_leader_epoch,
    describe_configs,
    create_partitions,
    elect_leaders,
    alter_partition_reassignments,
    list_partition_reassignments,
    alter_configs,
    incremental_alter_configs,
]
HANDLER_MODULES += [delete_records, describe_log_dirs, alter_replica_log_dirs]
HANDLER_MODULES += [
    offset_commit,
    offset_fetch,
    join_group,
    heartbeat,
    leave_group,
    sync_group,
    describe_groups,
    list_groups,
    delete_groups,
    offset_delete,
]
HANDLER_MODULES += [describe_acls, create_acls, delete_acls]
HANDLER_MODULES += [write_txn_markers, add_partitions_to_txn, add_offsets_to_txn, end_txn, txn_offset_commit]
HANDLER_MODULES += [create_delegation_token, renew_delegation_token, expire_delegation_token, describe_delegation_token]
HANDLER_MODULES += [sasl_handshake, sasl_authenticate]

HANDLERS = {module.API_KEY: module.handle for module in HANDLER_MODULES}  # unbound: handle(request, **collaborators)


class MissingCollaborator(Exception):
    """A handler names a collaborator its provider does not have."""


def supported_versions():
    """[(api_key, min_version, max_version)] for every API with a handler."""
    return [(key, API_SPECS[key].min_version, API_SPECS[key].max_version) for key in sorted(HANDLERS)]


# ApiVersions answers with this table's versions, given here: its module is imported by the table, not the reverse.
HANDLERS[api_versions.API_KEY] = api_versions.handler(supported_versions)


def collaborators(handle):
    """The names of a handler's keyword-only parameters: what it uses besides the request."""
    return [
        parameter.name
        for parameter in inspect.signature(handle).parameters.values()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]


def bind_handlers(provider, **given):
    """{api_key: handle(request)}: each handler with its collaborators bound, taken from ``given`` or else from
    the provider's attribute of the same name. A value is read once, here; one that changes later must be given as
    something that knows it. Raises MissingCollaborator naming the handler and what it lacks."""
    bound = {}
    for api_key, handle in HANDLERS.items():
        arguments = {}
        for name in collaborators(handle):
            if name in given:
                arguments[name] = given[name]
            elif hasattr(provider, name):
                arguments[name] = getattr(provider, name)
            else:
                raise MissingCollaborator(
                    "the %s handler (api key %d) needs %r, which %s does not provide"
                    % (API_SPECS[api_key].name, api_key, name, type(provider).__name__)
                )
        module = _SELF_BINDING.get(api_key)
        if module is not None and handle is module.handle:
            bound[api_key] = _described(module.bind(**arguments), handle, arguments)
        else:
            bound[api_key] = _bind(handle, arguments)
    return bound


# The handlers of the hot path bind themselves in their compiled modules (the exec'd wrapper runs interpreted);
# only while the table holds that module's own handle (tests may wrap it).
_SELF_BINDING = {produce.API_KEY: produce, fetch.API_KEY: fetch}


def _bind(handle, arguments):
    """``handle`` with ``arguments`` bound as keywords: what functools.partial(handle, **arguments) does, as a
    function whose call passes them by name without copying a dict of them each time (a partial with keywords
    does). Like a partial, it tells its ``func`` and ``keywords``."""
    names = list(arguments)  # keyword-only parameter names: identifiers, none of them _handle or request
    source = "def make(%s):\n    def bound(request):\n        return _handle(request%s)\n    return bound\n" % (
        ", ".join(["_handle"] + names),
        "".join(", %s=%s" % (name, name) for name in names),
    )
    namespace = {}
    exec(compile(source, "<bound %s>" % getattr(handle, "__qualname__", "handler"), "exec"), namespace)
    return _described(namespace["make"](handle, *arguments.values()), handle, arguments)


def _described(bound, handle, arguments):
    """``bound`` telling, like a partial, its ``func`` and ``keywords``."""
    bound.func = handle
    bound.keywords = dict(arguments)
    return bound


# What a starting broker serves before it has registered: a connection's set-up.
CONNECTION_APIS = frozenset({api_versions.API_KEY, sasl_handshake.API_KEY, sasl_authenticate.API_KEY})
# And, once registered, before the controller has told it about the cluster: the controller's requests.
CONTROLLER_APIS = frozenset(
    {leader_and_isr.API_KEY, update_metadata.API_KEY, stop_replica.API_KEY, controlled_shutdown.API_KEY}
)


class Dispatcher:
    """What the listener calls: the bound handler of a request's API key, and the versions it may advertise.

    A broker starts listening before it registers (a listener on port 0 registers the port it was given). Until
    it serves every API, the requests of the others wait, as they wait in Kafka's sockets until its processors
    start: a restarted broker that waits for its previous incarnation's registration to expire would otherwise
    apply what the controller sent that incarnation, and answer clients from an empty view of the cluster."""

    def __init__(self, handlers, serving=None):
        """``serving``: the API keys served from the start (None: all)."""
        self.handlers = handlers  # {api_key: handle(request)}
        self.serving = serving
        self._waiting = []  # [(request, Deferred of its answer)] in arrival order

    def handle(self, request):
        if self.serving is None or request.api_key in self.serving:
            return self.handlers[request.api_key](request)
        answer = defer.Deferred()
        self._waiting.append((request, answer))
        return answer

    def serve(self, api_keys=None):
        """Serve ``api_keys`` too from now on (None: every API); the requests waiting for them go first."""
        if self.serving is None:
            return
        self.serving = None if api_keys is None else self.serving | api_keys
        waiting, self._waiting = self._waiting, []
        for request, answer in waiting:
            if self.serving is None or request.api_key in self.serving:
                defer.maybeDeferred(self.handlers[request.api_key], request).chainDeferred(answer)
            else:
                self._waiting.append((request, answer))

    def supported_versions(self):
        return supported_versions()
