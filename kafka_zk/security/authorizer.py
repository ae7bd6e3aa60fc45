"""What the API handlers ask an authorizer, and the vocabulary of ACLs with Kafka's wire codes.

An authorizer answers ``authorize(principal, host, operation, resource_type, resource_name) -> bool`` for one
action; a broker without ``authorizer.class.name`` has none (None), and then every action is allowed.
"""

from __future__ import annotations

import enum
import logging
import re


class ResourceType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6

    @property
    def display_name(self) -> str:
        """The name ZooKeeper paths and tools use: Topic, Group, Cluster, TransactionalId, DelegationToken."""
        return "".join(part.capitalize() for part in self.name.split("_"))


class AclOperation(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12

    @property
    def display_name(self) -> str:
        """Read, Write, ..., ClusterAction, DescribeConfigs, IdempotentWrite: as ZooKeeper's ACL JSON names it."""
        return "".join(part.capitalize() for part in self.name.split("_"))


class PatternType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class PermissionType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


CLUSTER_NAME = "kafka-cluster"
WILDCARD = "*"


def is_authorized(
    authorizer, request, operation: AclOperation, resource_type: ResourceType, resource_name: str, audit: bool = True
) -> bool:
    """One action of a request's principal from its host; always True without an authorizer. Kafka's audit line
    goes to ``kafka.authorizer.logger`` (kafka-authorizer.log): a denial at INFO, an allowed action at DEBUG; with
    ``audit`` False (only working out authorized operations) both at TRACE."""
    if authorizer is None:
        return True
    allowed = authorizer.authorize(request.principal, request.client_host, operation, resource_type, resource_name)
    level = (logging.DEBUG if allowed else logging.INFO) if audit else TRACE
    if _audit_log.isEnabledFor(level):
        _audit_log.log(
            level,
            "Principal = %s is %s Operation = %s from host = %s on resource = %s:LITERAL:%s for "
            "request = %s with resourceRefCount = 1",
            request.principal,
            "Allowed" if allowed else "Denied",
            _camel(AclOperation(operation).name),
            request.client_host,
            _camel(ResourceType(resource_type).name),
            resource_name,
            _request_name(request),
        )
    return allowed


TRACE = 5
_audit_log = logging.getLogger("kafka.authorizer.logger")


def _camel(name):
    """CLUSTER_ACTION -> ClusterAction, as Kafka's SecurityUtils names operations and resource types."""
    return "".join(part.capitalize() for part in name.split("_"))


def _request_name(request):
    from kafka_zk.protocol.api_keys import API_SPECS

    spec = API_SPECS.get(getattr(request, "api_key", None))
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", spec.name).upper() if spec else "UNKNOWN"
