"""What the API handlers ask the authorizer, the way Kafka 2.5's KafkaApis asks it: one action, the cluster, the
subset of names a principal may act on, and the authorized-operations bit fields of Metadata and DescribeGroups.

Every function takes the broker's ``authorizer`` (None when ``authorizer.class.name`` is unset: everything is
allowed) and the ``request`` (its ``principal`` and ``client_host`` are what the authorizer is asked about).
"""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import CLUSTER_NAME, AclOperation, ResourceType, is_authorized

AUTHORIZED_OPERATIONS_OMITTED = -2147483648  # the schemas' default: not asked for
# ConfigResource types (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs)
CONFIG_RESOURCE_TOPIC = 2
CONFIG_RESOURCE_BROKER = 4
CONFIG_RESOURCE_BROKER_LOGGER = 8

# Kafka's AuthorizerUtils.supportedOperations: what authorized_operations reports on, per resource type.
SUPPORTED_OPERATIONS = {
    ResourceType.TOPIC: (
        AclOperation.READ,
        AclOperation.WRITE,
        AclOperation.CREATE,
        AclOperation.DESCRIBE,
        AclOperation.DELETE,
        AclOperation.ALTER,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
    ),
    ResourceType.GROUP: (AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE),
    ResourceType.CLUSTER: (
        AclOperation.CREATE,
        AclOperation.CLUSTER_ACTION,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
        AclOperation.IDEMPOTENT_WRITE,
        AclOperation.ALTER,
        AclOperation.DESCRIBE,
    ),
    ResourceType.TRANSACTIONAL_ID: (AclOperation.DESCRIBE, AclOperation.WRITE),
    ResourceType.DELEGATION_TOKEN: (AclOperation.DESCRIBE,),
}


def authorized(authorizer, request, operation, resource_type, name):
    """May the request's principal perform ``operation`` on the named resource?"""
    return is_authorized(authorizer, request, operation, resource_type, name)


def cluster_authorized(authorizer, request, operation):
    """May the request's principal perform ``operation`` on the cluster (``kafka-cluster``)?"""
    return is_authorized(authorizer, request, operation, ResourceType.CLUSTER, CLUSTER_NAME)


def authorized_names(authorizer, request, operation, resource_type, names):
    """The set of ``names`` the principal may perform ``operation`` on; each distinct name is asked once."""
    distinct = list(dict.fromkeys(names))
    if authorizer is None:
        return set(distinct)
    return {name for name in distinct if is_authorized(authorizer, request, operation, resource_type, name)}


def authorized_operations(authorizer, request, resource_type, name):
    """The 32-bit field of the supported operations on a resource the principal may perform (bit n set for the
    operation with code n), as Metadata (v8+) and DescribeGroups (v3+) report it when asked."""
    field = 0
    for operation in SUPPORTED_OPERATIONS[ResourceType(resource_type)]:
        if is_authorized(authorizer, request, operation, resource_type, name, audit=False):
            field |= 1 << int(operation)
    return field


def config_resource_error(authorizer, request, operation, resource_type, name):
    """DescribeConfigs / AlterConfigs / IncrementalAlterConfigs on a config resource: None when allowed, else
    the error Kafka answers. Broker and broker-logger resources (4, 8) need ``operation`` on the cluster
    (else CLUSTER_AUTHORIZATION_FAILED), topics (2) on the topic (else TOPIC_AUTHORIZATION_FAILED); other
    types are left to the handler."""
    if resource_type in (CONFIG_RESOURCE_BROKER, CONFIG_RESOURCE_BROKER_LOGGER):
        return None if cluster_authorized(authorizer, request, operation) else Errors.CLUSTER_AUTHORIZATION_FAILED
    if resource_type == CONFIG_RESOURCE_TOPIC:
        if is_authorized(authorizer, request, operation, ResourceType.TOPIC, name):
            return None
        return Errors.TOPIC_AUTHORIZATION_FAILED
    return None
