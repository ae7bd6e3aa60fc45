"""ZooKeeper client login as Kafka's JVM does it (JaasUtils, KIP-515's TLS): SASL from the JAAS file's `Client`
section, TLS from the zookeeper.ssl.* settings, the secure ACL decision of brokers (zookeeper.set.acl) and of tools,
and Kafka's messages when they do not fit together.

Kafka reads these from JVM system properties, which its scripts take from KAFKA_OPTS: the JAAS file
(`-Djava.security.auth.login.config=<file>`), `-Dzookeeper.sasl.client=false` (SASL off) and
`-Dzookeeper.sasl.clientconfig=<section>` (another section than `Client`). ZooKeeper's client authenticates with
DIGEST-MD5 from the section's username and password (Kerberos, GSSAPI, is not supported here).
"""

from __future__ import annotations

import os
import shlex
from typing import Mapping

from kafka_zk.security.jaas import LOGIN_CONFIG_PROPERTY, JaasError, login_config_path, read_jaas_file
from kafka_zk.security.zk_tls import ZkTls, ZkTlsError, client_auth_enabled, zk_tls
from kafka_zk.zk.acls import ZkSecurity

ZK_SASL_CLIENT = "zookeeper.sasl.client"
ZK_LOGIN_CONTEXT_NAME_KEY = "zookeeper.sasl.clientconfig"
DEFAULT_ZK_LOGIN_CONTEXT_NAME = "Client"
ZK_SET_ACL = "zookeeper.set.acl"
_KERBEROS_MODULE = "com.sun.security.auth.module.Krb5LoginModule"


class ZkSecurityError(Exception):
    """ZooKeeper security that cannot be set up (Kafka's SecurityException / KafkaException)."""


def system_properties(environ: Mapping[str, str]) -> dict[str, str]:
    """The `-Dname=value` JVM system properties in KAFKA_OPTS."""
    properties = {}
    for word in shlex.split(environ.get("KAFKA_OPTS", "")):
        if word.startswith("-D"):
            name, _, value = word[2:].partition("=")
            properties[name] = value
    return properties


def zk_security_sys_config_string(environ: Mapping[str, str]) -> str:
    """Kafka's JaasUtils.zkSecuritySysConfigString: the three properties, or how they default."""
    properties = system_properties(environ)
    return "[%s=%s, %s=%s, %s=%s]" % (
        LOGIN_CONFIG_PROPERTY,
        login_config_path(environ) or "null",
        ZK_SASL_CLIENT,
        properties.get(ZK_SASL_CLIENT, "default:true"),
        ZK_LOGIN_CONTEXT_NAME_KEY,
        properties.get(ZK_LOGIN_CONTEXT_NAME_KEY, "default:" + DEFAULT_ZK_LOGIN_CONTEXT_NAME),
    )


def zk_sasl_options(environ: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """kazoo's sasl_options for the JAAS file's ZooKeeper client section, or None when there is no such section
    (JaasUtils.isZkSaslEnabled false)."""
    environ = os.environ if environ is None else environ
    path = login_config_path(environ)
    if path is None:
        return None
    properties = system_properties(environ)
    context = properties.get(ZK_LOGIN_CONTEXT_NAME_KEY, DEFAULT_ZK_LOGIN_CONTEXT_NAME)
    try:
        modules = read_jaas_file(path).get(context)
    except JaasError as error:
        raise ZkSecurityError(
            "Exception while loading Zookeeper JAAS login context %s: %s"
            % (zk_security_sys_config_string(environ), error)
        ) from None
    if not modules:
        return None
    if properties.get(ZK_SASL_CLIENT, "true").lower() != "true":
        raise ZkSecurityError(
            "Exception while determining if ZooKeeper is secure %s" % zk_security_sys_config_string(environ)
        )
    module = modules[0]
    if module.class_name == _KERBEROS_MODULE:
        raise ZkSecurityError(
            "JAAS section '%s' uses %s: only DIGEST-MD5 logins (username and password) to "
            "ZooKeeper are supported" % (context, module.class_name)
        )
    if "username" not in module.options or "password" not in module.options:
        raise ZkSecurityError(
            "JAAS section '%s' (%s) needs username and password options for DIGEST-MD5" % (context, module.class_name)
        )
    return {"mechanism": "DIGEST-MD5", "username": module.options["username"], "password": module.options["password"]}


def _with_tls(security: ZkSecurity, tls: ZkTls | None) -> ZkSecurity:
    if tls is None:
        return security
    return ZkSecurity(
        sasl_options=security.sasl_options,
        secure_acls=security.secure_acls,
        tls_options=dict(tls.client_options),
        tls_socket_options=dict(tls.socket_options),
    )


def _tls(tls_settings: Mapping[str, object] | None) -> ZkTls | None:
    try:
        return zk_tls(tls_settings or {})
    except ZkTlsError as error:
        raise ZkSecurityError(str(error)) from None


def broker_zk_security(
    set_acl: bool, environ: Mapping[str, str] | None = None, tls_settings: Mapping[str, object] | None = None
) -> ZkSecurity:
    """A broker's session: SASL when the JAAS file has the section, TLS as its zookeeper.ssl.* settings say; secure
    ACLs when zookeeper.set.acl is true, which without SASL nor a TLS client certificate is refused with Kafka's
    message (KafkaServer.initZkClient)."""
    environ = os.environ if environ is None else environ
    sasl = zk_sasl_options(environ)
    if set_acl and sasl is None and not client_auth_enabled(tls_settings or {}):
        raise ZkSecurityError(
            "%s is true, but ZooKeeper client TLS configuration identifying at least zookeeper.ssl.client.enable, "
            "zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location was not present and the verification "
            "of the JAAS login file failed %s" % (ZK_SET_ACL, zk_security_sys_config_string(environ))
        )
    return _with_tls(ZkSecurity(sasl_options=sasl, secure_acls=bool(set_acl)), _tls(tls_settings))


def tool_zk_security(
    environ: Mapping[str, str] | None = None, tls_settings: Mapping[str, object] | None = None
) -> ZkSecurity:
    """A tool's session (kafka-topics, kafka-configs, ... --zookeeper): SASL when the JAAS file has the section, TLS
    as its --zk-tls-config-file says; secure ACLs when either authenticates, as Kafka's tools pass
    JaasUtils.isZkSaslEnabled() || KafkaConfig.zkTlsClientAuthEnabled as their isSecure."""
    sasl = zk_sasl_options(environ)
    secure = sasl is not None or client_auth_enabled(tls_settings or {})
    return _with_tls(ZkSecurity(sasl_options=sasl, secure_acls=secure), _tls(tls_settings))
