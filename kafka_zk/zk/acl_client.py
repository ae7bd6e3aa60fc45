"""SecuredKazooClient: a kazoo client that authenticates as a ZkSecurity says and gives each znode it creates the
ACLs Kafka would (kafka_zk/zk/acls.py), also to the parents a `makepath` or `ensure_path` creates on the way and
to the creates inside transactions. An explicit `acl=` argument still wins. It speaks TLS when the ZkSecurity says
so. Its connection attempts to one server last the session timeout over the number of servers, as ZooKeeper's own
client's do."""

from __future__ import annotations

from kazoo.client import KazooClient, TransactionRequest
from kazoo.handlers.threading import SequentialThreadingHandler
from kazoo.security import ACL, Id, Permissions

from kafka_zk.zk.acls import ALL, UNSECURED, ZkAcl, ZkSecurity

_PERMISSIONS = {ALL: Permissions.ALL, "read": Permissions.READ}


def kazoo_acls(acls: tuple[ZkAcl, ...]) -> list[ACL]:
    return [ACL(_PERMISSIONS[acl.permission], Id(acl.scheme, acl.id)) for acl in acls]


class _PathAcl(list):
    """ACLs chosen from a path, not by the caller: the parents created on the way choose their own."""


class _SecuredTransaction(TransactionRequest):
    def create(self, path, value=b"", acl=None, ephemeral=False, sequence=False):
        created = super().create(
            path, b"" if value is None else value, self.client.acl_for(path, acl), ephemeral, sequence
        )
        if value is None:  # kazoo checks for bytes, its wire format has null data: a create with no data at all
            self.operations[-1] = self.operations[-1]._replace(data=None)
        return created


class ServerBoundedHandler(SequentialThreadingHandler):
    """Kazoo's threading handler, but a connection to one server gives up after ``connect_timeout_s``. Kazoo gives
    each attempt the whole session timeout: a server cut off the network (its packets dropped) then held a broker
    until its session had expired on the others, which ZooKeeper's client, at sessionTimeout / servers a server,
    would have reached in time (drill e: the ensemble's leader isolated)."""

    connect_timeout_s: float | None = None
    tls_socket_options: dict = {}  # a TLS connection's SSL context options and ciphers, which kazoo's client lacks

    def create_connection(self, *args, **kwargs):
        if self.connect_timeout_s is not None and kwargs.get("timeout") is not None:
            kwargs["timeout"] = min(kwargs["timeout"], self.connect_timeout_s)
        if kwargs.get("use_ssl"):
            kwargs.update(self.tls_socket_options)
        return super().create_connection(*args, **kwargs)


class SecuredKazooClient(KazooClient):
    def __init__(self, hosts: str, security: ZkSecurity = UNSECURED, **kwargs):
        sasl = dict(security.sasl_options) if security.sasl_options else None  # kazoo adds keys to it
        handler = kwargs.pop("handler", None) or ServerBoundedHandler()
        kwargs.update(security.tls_options or {})
        super().__init__(hosts=hosts, sasl_options=sasl, handler=handler, **kwargs)
        if isinstance(handler, ServerBoundedHandler):
            handler.connect_timeout_s = self._session_timeout / 1000.0 / max(1, len(self.hosts))
            handler.tls_socket_options = dict(security.tls_socket_options or {})
        self.security = security

    def acl_for(self, path: str, acl):
        """The caller's ACL if it gave one, else the path's own (Kafka's default ACLs for it)."""
        if acl is not None and not isinstance(acl, _PathAcl):
            return acl
        return _PathAcl(kazoo_acls(self.security.acls_for(path.rstrip("/") or "/")))

    # value None by default: the parents kazoo's makepath creates (through ensure_path_async, which passes no value)
    # hold no data at all, as those of Kafka's createRecursive; every other caller gives its data.
    def create_async(
        self, path, value=None, acl=None, ephemeral=False, sequence=False, makepath=False, include_data=False
    ):
        return super().create_async(
            path,
            value,
            acl=self.acl_for(path, acl),
            ephemeral=ephemeral,
            sequence=sequence,
            makepath=makepath,
            include_data=include_data,
        )

    def ensure_path_async(self, path, acl=None):
        return super().ensure_path_async(path, self.acl_for(path, acl))

    def transaction(self):
        return _SecuredTransaction(self)
