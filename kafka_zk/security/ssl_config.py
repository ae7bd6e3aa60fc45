"""Kafka's ssl.* settings: their defaults, a listener's view (``listener.name.<l>.ssl.*`` over ``ssl.*``), and
Java's protocol and cipher suite names translated to OpenSSL's."""

SSL_DEFAULTS = {
    "ssl.protocol": "TLSv1.2",
    "ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
    "ssl.keystore.type": "JKS",
    "ssl.keystore.location": None,
    "ssl.keystore.password": None,
    "ssl.key.password": None,
    "ssl.truststore.type": "JKS",
    "ssl.truststore.location": None,
    "ssl.truststore.password": None,
    "ssl.client.auth": "none",
    "ssl.cipher.suites": "",
    "ssl.endpoint.identification.algorithm": "https",
    "ssl.principal.mapping.rules": "DEFAULT",
    # librdkafka's name, accepted by our own client: a PEM file of trusted CA certificates.
    "ssl.ca.location": None,
}

KEYSTORE_TYPES = ("JKS", "PKCS12", "PEM")
CLIENT_AUTH_VALUES = ("required", "requested", "none")
TLS_PROTOCOLS = ("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3")
SSL_PROTOCOL_NAMES = ("TLS", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3", "SSL", "SSLv2", "SSLv3")
TLS_SECURITY_PROTOCOLS = ("SSL", "SASL_SSL")


class SslConfigError(ValueError):
    """An ssl.* setting that cannot be used (Kafka: a ConfigException or KafkaException at startup)."""


def listener_prefix(listener_name):
    """Kafka's ListenerName.configPrefix: ``listener.name.<lower-case name>.``."""
    return "listener.name.%s." % listener_name.lower()


def ssl_settings(props, listener_name=None):
    """{ssl.* name: value} for a listener: ``listener.name.<l>.ssl.*`` over ``ssl.*`` over Kafka's defaults.
    ``props`` maps names to raw values (strings, or lists for list configs); None values count as unset."""
    settings = dict(SSL_DEFAULTS)
    for name, value in props.items():
        if name.startswith("ssl.") and value is not None:
            settings[name] = value
    if listener_name is not None:
        prefix = listener_prefix(listener_name)
        for name, value in props.items():
            if name.startswith(prefix + "ssl.") and value is not None:
                settings[name[len(prefix) :]] = value
    return settings


def as_list(value):
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value if str(item).strip()]
    return [item.strip() for item in str(value).split(",") if item.strip()]


def validate(settings):
    """Kafka's checks of the values (ConfigDef validators and SslFactory's); raises SslConfigError."""
    client_auth = str(settings["ssl.client.auth"]).lower()
    if client_auth not in CLIENT_AUTH_VALUES:
        raise SslConfigError(
            "Invalid value %s for configuration ssl.client.auth: String must be one of: %s"
            % (settings["ssl.client.auth"], ", ".join(CLIENT_AUTH_VALUES))
        )
    for name in ("ssl.keystore.type", "ssl.truststore.type"):
        if str(settings[name]).upper() not in KEYSTORE_TYPES:
            raise SslConfigError(
                "Failed to load SSL keystore of type %s: %s not found" % (settings[name], settings[name])
            )
    if str(settings["ssl.protocol"]) not in SSL_PROTOCOL_NAMES:
        raise SslConfigError("%s SSLContext not available" % settings["ssl.protocol"])
    tls_versions(settings)
    openssl_ciphers(settings)
    if (
        settings["ssl.keystore.location"]
        and settings["ssl.keystore.password"] is None
        and str(settings["ssl.keystore.type"]).upper() != "PEM"
    ):
        raise SslConfigError("SSL key store is specified, but key store password is not specified.")
    endpoint_algorithm = settings["ssl.endpoint.identification.algorithm"] or ""
    if endpoint_algorithm and endpoint_algorithm.lower() != "https":
        raise SslConfigError("Unsupported endpoint identification algorithm: %s" % endpoint_algorithm)


def tls_versions(settings):
    """The enabled protocol names of ``ssl.enabled.protocols``, checked."""
    names = as_list(settings["ssl.enabled.protocols"])
    unknown = [name for name in names if name not in TLS_PROTOCOLS]
    if unknown:
        raise SslConfigError(
            "Unsupported protocol(s) in ssl.enabled.protocols: %s (supported: %s)"
            % (", ".join(unknown), ", ".join(TLS_PROTOCOLS))
        )
    if not names:
        raise SslConfigError("ssl.enabled.protocols enables no protocol")
    return names


# Java (IANA) names of the common suites -> OpenSSL names. TLS 1.3 suites keep their names in OpenSSL.
_JAVA_TO_OPENSSL_CIPHERS = {
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": "ECDHE-ECDSA-AES128-GCM-SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": "ECDHE-ECDSA-AES256-GCM-SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384": "ECDHE-RSA-AES256-GCM-SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-ECDSA-CHACHA20-POLY1305",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-RSA-CHACHA20-POLY1305",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256": "ECDHE-ECDSA-AES128-SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384": "ECDHE-ECDSA-AES256-SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256": "ECDHE-RSA-AES128-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384": "ECDHE-RSA-AES256-SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA": "ECDHE-ECDSA-AES128-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA": "ECDHE-ECDSA-AES256-SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": "ECDHE-RSA-AES128-SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA": "ECDHE-RSA-AES256-SHA",
    "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256": "DHE-RSA-AES128-GCM-SHA256",
    "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384": "DHE-RSA-AES256-GCM-SHA384",
    "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256": "DHE-RSA-CHACHA20-POLY1305",
    "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256": "DHE-RSA-AES128-SHA256",
    "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256": "DHE-RSA-AES256-SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384": "AES256-GCM-SHA384",
    "TLS_RSA_WITH_AES_128_CBC_SHA256": "AES128-SHA256",
    "TLS_RSA_WITH_AES_256_CBC_SHA256": "AES256-SHA256",
    "TLS_RSA_WITH_AES_128_CBC_SHA": "AES128-SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA": "AES256-SHA",
}
TLS13_CIPHER_SUITES = (
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_AES_128_CCM_SHA256",
    "TLS_AES_128_CCM_8_SHA256",
)
_OPENSSL_NAMES = frozenset(_JAVA_TO_OPENSSL_CIPHERS.values())


def openssl_ciphers(settings):
    """``ssl.cipher.suites`` as (OpenSSL TLS 1.2 cipher list, TLS 1.3 ciphersuites), each None when the list
    leaves it at OpenSSL's defaults (an empty ssl.cipher.suites: every suite the library enables)."""
    names = as_list(settings["ssl.cipher.suites"])
    if not names:
        return None, None
    tls12, tls13 = [], []
    for name in names:
        if name in TLS13_CIPHER_SUITES:
            tls13.append(name)
        elif name in _JAVA_TO_OPENSSL_CIPHERS:
            tls12.append(_JAVA_TO_OPENSSL_CIPHERS[name])
        elif name in _OPENSSL_NAMES:
            tls12.append(name)
        else:
            raise SslConfigError("Unsupported CipherSuite: %s" % name)
    # Naming suites of one version only leaves the other version without any: as Java, where such a
    # version cannot negotiate.
    return ":".join(tls12) if tls12 else "", ":".join(tls13) if tls13 else ""


def is_tls(security_protocol):
    return security_protocol in TLS_SECURITY_PROTOCOLS


def hostname_verification(settings):
    """Whether the client side checks the server's certificate names its host (Kafka 2.5: "https")."""
    return bool(settings["ssl.endpoint.identification.algorithm"])
