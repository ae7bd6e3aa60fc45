"""Which ZooKeeper ACLs a Kafka znode gets (Kafka 2.5's ZkData.defaultAcls), and how a session authenticates.

With secure ACLs (a broker with zookeeper.set.acl=true, or a tool whose JVM has a JAAS `Client` section or whose
--zk-tls-config-file names a client certificate) a znode is writable only by the identity that created it
(ZooKeeper's `auth` scheme, which the server turns into the creator's SASL identity, e.g. `sasl:kafka`, or the DN of
its TLS client certificate, `x509:CN=broker,...`) and readable by anyone, except under the sensitive roots (SCRAM
credentials, broker configs with passwords, delegation tokens), which nobody else may read. The old consumers'
root `/consumers` stays open: consumers of any identity write below it. Without secure ACLs every znode is open.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

CONSUMERS_PATH = "/consumers"

# Kafka's ZkData.SecureRootPaths: the roots zookeeper-security-migration walks (with ZkAclStore's ACL paths).
SECURE_ROOT_PATHS = (
    "/admin",
    "/brokers",
    "/cluster",
    "/config",
    "/controller",
    "/controller_epoch",
    "/isr_change_notification",
    "/latest_producer_id_block",
    "/log_dir_event_notification",
    "/delegation_token",
    "/kafka-acl",
    "/kafka-acl-changes",
    "/kafka-acl-extended",
    "/kafka-acl-extended/prefixed",
    "/kafka-acl-extended-changes",
)

# Kafka's ZkData.SensitiveRootPaths: no world READ at or below these (a prefix match, as Kafka's startsWith).
SENSITIVE_ROOT_PATHS = ("/config/users", "/config/brokers", "/delegation_token/tokens")

ALL = "all"
READ = "read"


class ZkAcl(NamedTuple):
    """One ACL entry: scheme ("world", "auth", "sasl"), id ("anyone", "", a user name) and permission."""

    scheme: str
    id: str
    permission: str  # ALL or READ


CREATOR_ALL = ZkAcl("auth", "", ALL)  # ZooKeeper replaces `auth` by the creator's authenticated identities
WORLD_READ = ZkAcl("world", "anyone", READ)
WORLD_ALL = ZkAcl("world", "anyone", ALL)


def is_sensitive_path(path: str | None) -> bool:
    return path is not None and any(path.startswith(root) for root in SENSITIVE_ROOT_PATHS)


def default_acls(secure: bool, path: str) -> tuple[ZkAcl, ...]:
    """The ACLs Kafka gives `path` (relative to the chroot) when it creates it, or when the migration tool walks it."""
    if not secure or path == CONSUMERS_PATH:
        return (WORLD_ALL,)
    if is_sensitive_path(path):
        return (CREATOR_ALL,)
    return (CREATOR_ALL, WORLD_READ)


@dataclass(frozen=True)
class ZkSecurity:
    """How a ZooKeeper session authenticates (kazoo's `sasl_options`, None for none), whether it speaks TLS (kazoo's
    TLS arguments in `tls_options`, the SSL context's options and ciphers in `tls_socket_options`; None: plain text)
    and whether the znodes it creates get secure ACLs. Decided above this layer: from the JAAS file, the
    zookeeper.ssl.* settings and zookeeper.set.acl (see kafka_zk/security/zk_login.py)."""

    sasl_options: Mapping[str, str] | None = field(default=None)
    secure_acls: bool = False
    tls_options: Mapping[str, Any] | None = field(default=None)
    tls_socket_options: Mapping[str, Any] | None = field(default=None)

    def acls_for(self, path: str) -> tuple[ZkAcl, ...]:
        return default_acls(self.secure_acls, path)


UNSECURED = ZkSecurity()
