"""The registry of every API we serve (key -> schemas and version range) and header-version rules."""

from dataclasses import dataclass
from types import ModuleType

from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import (
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
from kafka_zk.protocol.primitives import Writer
from kafka_zk.protocol.schema import Schema, UnsupportedVersionError

_MODULES = (
    produce,
    fetch,
    list_offsets,
    metadata,
    leader_and_isr,
    stop_replica,
    update_metadata,
    controlled_shutdown,
    offset_commit,
    offset_fetch,
    find_coordinator,
    join_group,
    heartbeat,
    leave_group,
    sync_group,
    describe_groups,
    list_groups,
    sasl_handshake,
    api_versions,
    create_topics,
    delete_topics,
    delete_records,
    init_producer_id,
    offset_for_leader_epoch,
    add_partitions_to_txn,
    add_offsets_to_txn,
    end_txn,
    write_txn_markers,
    txn_offset_commit,
    describe_acls,
    create_acls,
    delete_acls,
    describe_configs,
    alter_configs,
    alter_replica_log_dirs,
    describe_log_dirs,
    sasl_authenticate,
    create_partitions,
    create_delegation_token,
    renew_delegation_token,
    expire_delegation_token,
    describe_delegation_token,
    delete_groups,
    elect_leaders,
    incremental_alter_configs,
    alter_partition_reassignments,
    list_partition_reassignments,
    offset_delete,
)


@dataclass(frozen=True)
class ApiSpec:
    api_key: int
    name: str
    request: Schema
    response: Schema
    min_version: int
    max_version: int
    flexible_min: int | None  # None when no version is flexible

    def supports(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version

    def is_flexible(self, version: int) -> bool:
        return self.flexible_min is not None and version >= self.flexible_min


def _spec(module: ModuleType) -> ApiSpec:
    request, response = module.REQUEST, module.RESPONSE
    if (request.min_version, request.max_version, request.flexible_min()) != (
        response.min_version,
        response.max_version,
        response.flexible_min(),
    ):
        raise ValueError("%s: request and response version ranges differ" % module.NAME)
    return ApiSpec(
        module.API_KEY, module.NAME, request, response, request.min_version, request.max_version, request.flexible_min()
    )


API_SPECS = {module.API_KEY: _spec(module) for module in _MODULES}

API_KEY_CONTROLLED_SHUTDOWN = controlled_shutdown.API_KEY
API_KEY_API_VERSIONS = api_versions.API_KEY


def get_spec(api_key: int, version: int) -> ApiSpec:
    """The spec for ``api_key`` if it serves ``version``; UnsupportedVersionError otherwise."""
    spec = API_SPECS.get(api_key)
    if spec is None:
        raise UnsupportedVersionError("unknown api key %d" % api_key)
    if not spec.supports(version):
        raise UnsupportedVersionError("%s does not support version %d" % (spec.name, version))
    return spec


def _header_versions(spec: ApiSpec, version: int) -> tuple[int, int]:
    """(request header version, response header version) for one API version."""
    flexible = spec.is_flexible(version)
    if spec.api_key == API_KEY_CONTROLLED_SHUTDOWN and version == 0:
        request = 0  # no client id
    else:
        request = 2 if flexible else 1
    # ApiVersions answers stay on header v0: clients parse them before they know our versions.
    response = 1 if flexible and spec.api_key != API_KEY_API_VERSIONS else 0
    return request, response


# (api_key, version) -> (request header version, response header version), for every served version.
HEADER_VERSIONS = {
    (spec.api_key, version): _header_versions(spec, version)
    for spec in API_SPECS.values()
    for version in range(spec.min_version, spec.max_version + 1)
}


def header_versions(api_key: int, version: int) -> tuple[int, int]:
    """(request header version, response header version); UnsupportedVersionError if not served."""
    versions = HEADER_VERSIONS.get((api_key, version))
    if versions is None:
        get_spec(api_key, version)  # raises with the reason
    return versions  # type: ignore[return-value]  # get_spec raised for an unserved version


def request_header_version(api_key: int, version: int) -> int:
    """0 for ControlledShutdown v0 (no client id), 2 for flexible versions, else 1."""
    return header_versions(api_key, version)[0]


def response_header_version(api_key: int, version: int) -> int:
    """ApiVersions always 0; 1 for other flexible versions; else 0."""
    return header_versions(api_key, version)[1]


def supported_api_versions() -> list[tuple[int, int, int]]:
    """[(api_key, min_version, max_version)] for every API we serve, by key."""
    return [
        (spec.api_key, spec.min_version, spec.max_version)
        for spec in sorted(API_SPECS.values(), key=lambda s: s.api_key)
    ]


def encode_unsupported_api_versions(correlation_id: int, supported: list[tuple[int, int, int]] | None = None) -> bytes:
    """The reply to an ApiVersions request at a version we do not serve, without frame length.

    Response header v0, then the v0 body: UNSUPPORTED_VERSION and, of ``supported`` (by default everything we
    serve), only ApiVersions' own range, as Kafka 2.5 answers: the client retries at a version both know.
    """
    if supported is None:
        supported = supported_api_versions()
    supported = [entry for entry in supported if entry[0] == api_versions.API_KEY]
    writer = Writer()
    writer.write_int32(correlation_id)
    body = {
        "error_code": Errors.UNSUPPORTED_VERSION,
        "api_keys": [{"api_key": key, "min_version": low, "max_version": high} for key, low, high in supported],
    }
    api_versions.RESPONSE.encode_into(writer, body, 0)
    return writer.getvalue()
