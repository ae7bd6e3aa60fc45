"""The znodes of Kafka 2.5's security: ACLs (literal and prefixed stores, their change notifications) and delegation
tokens (their store and change notifications). Pure, like znodes.py, whose JSON helpers they share."""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple

from kafka_zk.zk.znodes import _decode_json, _encode_json, desanitize, sanitize


class AclZNodes:
    """ACL paths: literal patterns under /kafka-acl, others under /kafka-acl-extended/<pattern type>."""

    LITERAL_ROOT = "/kafka-acl"
    EXTENDED_ROOT = "/kafka-acl-extended"
    LITERAL_CHANGES = "/kafka-acl-changes"
    EXTENDED_CHANGES = "/kafka-acl-extended-changes"
    CHANGE_PREFIX = "acl_changes_"

    @staticmethod
    def root(pattern_type: str = "LITERAL") -> str:
        if pattern_type.upper() == "LITERAL":
            return AclZNodes.LITERAL_ROOT
        return f"{AclZNodes.EXTENDED_ROOT}/{pattern_type.lower()}"

    @staticmethod
    def resource_type_path(resource_type: str, pattern_type: str = "LITERAL") -> str:
        return f"{AclZNodes.root(pattern_type)}/{resource_type}"

    @staticmethod
    def path(resource_type: str, name: str, pattern_type: str = "LITERAL") -> str:
        """e.g. path("Topic", "t") == "/kafka-acl/Topic/t"."""
        return f"{AclZNodes.resource_type_path(resource_type, pattern_type)}/{name}"

    @staticmethod
    def change_path(pattern_type: str = "LITERAL", sequence: str = "") -> str:
        changes = AclZNodes.LITERAL_CHANGES if pattern_type.upper() == "LITERAL" else AclZNodes.EXTENDED_CHANGES
        return f"{changes}/{AclZNodes.CHANGE_PREFIX}{sequence}"


ACL_RESOURCE_TYPES = ("Topic", "Group", "Cluster", "TransactionalId", "DelegationToken")
ACL_PATTERN_TYPES = ("LITERAL", "PREFIXED")  # the pattern types with a store


class AclZNode:
    """The ACLs of one resource pattern: ``{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",
    "operation":"Read","host":"*"}]}``; an entry is a dict of those four names."""

    VERSION = 1

    @staticmethod
    def path(resource_type: str, name: str, pattern_type: str = "LITERAL") -> str:
        return AclZNodes.path(resource_type, name, pattern_type)

    @staticmethod
    def encode(entries: Iterable[Mapping[str, str]]) -> bytes:
        return _encode_json({"version": AclZNode.VERSION, "acls": [dict(entry) for entry in entries]})

    @staticmethod
    def decode(data: bytes | None) -> list[dict[str, str]]:
        parsed = _decode_json(data)
        return list(parsed.get("acls", [])) if parsed else []


class AclChangeNotificationZNode:
    """acl_changes_<seq> naming the pattern whose ACLs changed: ``TOPIC:events`` under /kafka-acl-changes for a
    literal one, ``{"version":1,"resourceType":"TOPIC","name":"ev","patternType":"PREFIXED"}`` under
    /kafka-acl-extended-changes for the others: the Java enums' names, as Kafka 2.5 writes them (readers take any
    case)."""

    @staticmethod
    def parent(pattern_type: str = "LITERAL") -> str:
        return AclZNodes.change_path(pattern_type).rsplit("/", 1)[0]

    @staticmethod
    def path(pattern_type: str = "LITERAL", sequence: str = "") -> str:
        return AclZNodes.change_path(pattern_type, sequence)

    @staticmethod
    def encode(resource_type: str, name: str, pattern_type: str = "LITERAL") -> bytes:
        if pattern_type.upper() == "LITERAL":
            return f"{resource_type.upper()}:{name}".encode("utf-8")
        return _encode_json(
            {"version": 1, "resourceType": resource_type.upper(), "name": name, "patternType": pattern_type.upper()}
        )

    @staticmethod
    def decode(data: bytes, pattern_type: str = "LITERAL") -> tuple[str, str, str]:
        """(resource type, name, pattern type) as written; raises ValueError when malformed."""
        if pattern_type.upper() == "LITERAL":
            resource_type, separator, name = data.decode("utf-8").partition(":")
            if not separator:
                raise ValueError(f"expected a string in format ResourceType:ResourceName but got {data!r}")
            return resource_type, name, "LITERAL"
        event = _decode_json(data)
        if not isinstance(event, dict) or event.get("version", 1) > 1:
            raise ValueError(f"unsupported ACL change event {data!r}")
        return event["resourceType"], event["name"], event["patternType"]


# What AclAuthorizer creates when it starts (and kafka-acls --authorizer-properties): each store's root with its
# resource types, and the change paths.
ACL_PATHS = (
    *(
        AclZNodes.resource_type_path(resource_type, pattern_type)
        for pattern_type in ACL_PATTERN_TYPES
        for resource_type in ACL_RESOURCE_TYPES
    ),
    *(AclChangeNotificationZNode.parent(pattern_type) for pattern_type in ACL_PATTERN_TYPES),
)


# ---------------------------------------------------------------------------------------------
# Delegation tokens (created only while delegation.token.master.key is set)


class StoredDelegationToken(NamedTuple):
    """What /delegation_token/tokens/<tokenId> holds; principals as strings ("User:alice")."""

    token_id: str
    owner: str
    renewers: tuple[str, ...]
    issue_timestamp: int
    max_timestamp: int
    expiry_timestamp: int


class DelegationTokenAuthZNode:
    PATH = "/delegation_token"

    @staticmethod
    def path() -> str:
        return DelegationTokenAuthZNode.PATH


class DelegationTokensZNode:
    PATH = "/delegation_token/tokens"

    @staticmethod
    def path() -> str:
        return DelegationTokensZNode.PATH


class DelegationTokenInfoZNode:
    VERSION = 1

    @staticmethod
    def path(token_id: str) -> str:
        return f"{DelegationTokensZNode.PATH}/{token_id}"

    @staticmethod
    def encode(token: StoredDelegationToken) -> bytes:
        """Kafka 2.5's JSON, keys in the order its Scala 2.12 HashMap yields them, principals sanitized."""
        return _encode_json(
            {
                "issueTimestamp": token.issue_timestamp,
                "renewers": [sanitize(renewer) for renewer in token.renewers],
                "maxTimestamp": token.max_timestamp,
                "version": DelegationTokenInfoZNode.VERSION,
                "tokenId": token.token_id,
                "owner": sanitize(token.owner),
                "expiryTimestamp": token.expiry_timestamp,
            }
        )

    @staticmethod
    def decode(data: bytes | None) -> StoredDelegationToken | None:
        """None for an absent or empty znode; ValueError for a version Kafka 2.5 does not write."""
        parsed = _decode_json(data)
        if parsed is None:
            return None
        version = int(parsed["version"])
        if not 0 < version <= DelegationTokenInfoZNode.VERSION:
            raise ValueError("unsupported delegation token znode version %d" % version)
        return StoredDelegationToken(
            str(parsed["tokenId"]),
            desanitize(parsed["owner"]),
            tuple(desanitize(renewer) for renewer in parsed["renewers"]),
            int(parsed["issueTimestamp"]),
            int(parsed["maxTimestamp"]),
            int(parsed["expiryTimestamp"]),
        )


class DelegationTokenChangeNotificationZNode:
    PATH = "/delegation_token/token_changes"

    @staticmethod
    def path() -> str:
        return DelegationTokenChangeNotificationZNode.PATH


class DelegationTokenChangeNotificationSequenceZNode:
    PREFIX = "token_change_"

    @staticmethod
    def path(sequence: str = "") -> str:
        return (
            f"{DelegationTokenChangeNotificationZNode.PATH}/"
            f"{DelegationTokenChangeNotificationSequenceZNode.PREFIX}{sequence}"
        )

    @staticmethod
    def encode(token_id: str) -> bytes:
        """The token id itself, as UTF-8 bytes (no JSON)."""
        return token_id.encode("utf-8")

    @staticmethod
    def decode(data: bytes) -> str:
        return data.decode("utf-8")


DELEGATION_TOKEN_PATHS = (DelegationTokenChangeNotificationZNode.PATH, DelegationTokensZNode.PATH)
