"""What the ACL APIs share: their wire fields as ACL bindings and filters, and the Cluster checks on the caller."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import (
    AclBinding,
    AclBindingFilter,
    AclEntry,
    AclEntryFilter,
    ResourcePattern,
    ResourcePatternFilter,
)
from kafka_zk.security.authorizer import (
    CLUSTER_NAME,
    AclOperation,
    PatternType,
    PermissionType,
    ResourceType,
    is_authorized,
)

NO_AUTHORIZER = "No Authorizer is configured on the broker"


def _enum(enum_type, code):
    """The member of a wire code; codes this broker does not know are UNKNOWN."""
    try:
        return enum_type(code)
    except ValueError:
        return enum_type.UNKNOWN


def binding_of(creation):
    """A CreateAcls creation as an AclBinding."""
    return AclBinding(
        ResourcePattern(
            _enum(ResourceType, creation["resource_type"]),
            creation["resource_name"],
            _enum(PatternType, creation.get("resource_pattern_type", PatternType.LITERAL)),
        ),
        AclEntry(
            creation["principal"],
            creation["host"],
            _enum(AclOperation, creation["operation"]),
            _enum(PermissionType, creation["permission_type"]),
        ),
    )


def filter_of(fields):
    """A DescribeAcls request or one DeleteAcls filter as an AclBindingFilter."""
    return AclBindingFilter(
        ResourcePatternFilter(
            _enum(ResourceType, fields["resource_type_filter"]),
            fields["resource_name_filter"],
            _enum(PatternType, fields.get("pattern_type_filter", PatternType.LITERAL)),
        ),
        AclEntryFilter(
            fields["principal_filter"],
            fields["host_filter"],
            _enum(AclOperation, fields["operation"]),
            _enum(PermissionType, fields["permission_type"]),
        ),
    )


def entry_fields(entry):
    return {
        "principal": entry.principal,
        "host": entry.host,
        "operation": int(entry.operation),
        "permission_type": int(entry.permission),
    }


def cluster_allowed(authorizer, request, operation):
    """Whether the caller may ``operation`` the Cluster (DescribeAcls: Describe; Create/DeleteAcls: Alter)."""
    return is_authorized(authorizer, request, operation, ResourceType.CLUSTER, CLUSTER_NAME)


CLUSTER_DENIED = (Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED.message)
