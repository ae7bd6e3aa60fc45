"""Kafka client properties' security settings (security.protocol, ssl.*, sasl.*), pure: split from the other client
settings (what our client takes as its ``security=`` dict), and turned into librdkafka's settings for the tools and
the Spark source and sink, which drive confluent-kafka."""

from cryptography.hazmat.primitives import serialization

from kafka_zk.security.jaas import JaasError, parse_jaas_config
from kafka_zk.security.ssl_config import SslConfigError, ssl_settings
from kafka_zk.security.ssl_context import key_material, load_trusted_certificates

SECURITY_PREFIXES = ("ssl.", "sasl.")
SECURITY_NAMES = ("security.protocol",)


def is_security_setting(name):
    return name in SECURITY_NAMES or name.startswith(SECURITY_PREFIXES)


def split_security(props):
    """(client settings, security settings) of Kafka client properties."""
    client, security = {}, {}
    for name, value in (props or {}).items():
        (security if is_security_setting(name) else client)[name] = value
    return client, security


# -- librdkafka --------------------------------------------------------------------------------------------

_SAME_NAME = (
    "security.protocol",
    "sasl.mechanism",
    "sasl.username",
    "sasl.password",
    "ssl.key.password",
    "ssl.ca.location",
    "ssl.certificate.location",
    "ssl.key.location",
    "ssl.ca.pem",
    "ssl.certificate.pem",
    "ssl.key.pem",
)
# Java-only settings a librdkafka client has no counterpart for (it chooses them itself).
_JAVA_ONLY = (
    "sasl.jaas.config",
    "sasl.login.",
    "sasl.kerberos.",
    "sasl.client.callback.handler.class",
    "ssl.truststore.",
    "ssl.keystore.",
    "ssl.protocol",
    "ssl.enabled.protocols",
    "ssl.provider",
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
    "ssl.secure.random.implementation",
    "ssl.engine.factory.class",
    "ssl.endpoint.identification.algorithm",
    "ssl.cipher.suites",
)


class SecuritySettingsError(ValueError):
    """Security settings a librdkafka client cannot be given."""


def librdkafka_security(security):
    """librdkafka's settings for Kafka's Java client security settings: the JAAS username and password as
    sasl.username/sasl.password, truststores and keystores (JKS, PKCS12, PEM) as inline PEM, the endpoint
    identification algorithm as https/none. Settings librdkafka already names alike are kept."""
    settings = {
        name: value
        for name, value in security.items()
        if name.startswith(("ssl.", "sasl.")) and not name.startswith(_JAVA_ONLY)
    }
    settings.update({name: security[name] for name in _SAME_NAME if name in security})
    jaas = security.get("sasl.jaas.config")
    if jaas:
        try:
            options = parse_jaas_config(jaas)[0].options
        except (JaasError, IndexError) as error:
            raise SecuritySettingsError("Invalid sasl.jaas.config: %s" % error) from None
        if str(options.get("tokenauth", "")).lower() == "true":
            raise SecuritySettingsError("librdkafka cannot log in with a delegation token (SCRAM tokenauth=true)")
        for option in ("username", "password"):
            if option in options:
                settings.setdefault("sasl." + option, options[option])
    if "ssl.endpoint.identification.algorithm" in security:
        settings["ssl.endpoint.identification.algorithm"] = (
            "https" if str(security["ssl.endpoint.identification.algorithm"]).strip() else "none"
        )
    if str(security.get("security.protocol", "")).upper() in ("SSL", "SASL_SSL"):
        material = _librdkafka_tls_material(security)
        if "ssl.key.pem" in material:
            settings.pop("ssl.key.password", None)  # the key is handed over decrypted
        settings.update(material)
    return settings


def _librdkafka_tls_material(security):
    """ssl.ca.pem, ssl.certificate.pem and ssl.key.pem from the Java truststore and keystore settings."""
    settings = ssl_settings(security)
    pem = serialization.Encoding.PEM
    result = {}
    try:
        if settings.get("ssl.truststore.location"):
            certificates = load_trusted_certificates(
                settings["ssl.truststore.type"],
                settings["ssl.truststore.location"],
                settings["ssl.truststore.password"],
            )
            result["ssl.ca.pem"] = "".join(cert.public_bytes(pem).decode("ascii") for cert in certificates)
        material = key_material(settings)
    except SslConfigError as error:
        raise SecuritySettingsError(str(error)) from None
    if material is not None:
        result["ssl.key.pem"] = material.key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode("ascii")
        result["ssl.certificate.pem"] = "".join(cert.public_bytes(pem).decode("ascii") for cert in material.chain)
    return result


def librdkafka_client_settings(props):
    """Kafka client properties for a librdkafka client: the settings other than security as given (librdkafka
    names most alike), the security settings as librdkafka_security turns them."""
    client, security = split_security(props)
    return dict(client, **librdkafka_security(security))
