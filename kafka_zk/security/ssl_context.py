"""pyOpenSSL contexts from Kafka's ssl.* settings: keystores and truststores (JKS via pyjks, PKCS12 via
cryptography, PEM), client authentication, enabled protocols and cipher suites. No reactor here: Twisted's
side is in security.tls_transport, the sync client's in client.connection."""

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from OpenSSL import SSL, crypto

from kafka_zk.security.ssl_config import SslConfigError, as_list, openssl_ciphers, tls_versions, validate

_VERSION_CODES = {
    "TLSv1": SSL.TLS1_VERSION,
    "TLSv1.1": SSL.TLS1_1_VERSION,
    "TLSv1.2": SSL.TLS1_2_VERSION,
    "TLSv1.3": SSL.TLS1_3_VERSION,
}
_NO_VERSION_OPTIONS = {
    "TLSv1": SSL.OP_NO_TLSv1,
    "TLSv1.1": SSL.OP_NO_TLSv1_1,
    "TLSv1.2": SSL.OP_NO_TLSv1_2,
    "TLSv1.3": SSL.OP_NO_TLSv1_3,
}
_ORDER = ["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"]


class KeyMaterial:
    """A private key with its certificate chain (leaf first), as cryptography objects."""

    def __init__(self, key, chain):
        self.key = key
        self.chain = chain

    @property
    def certificate(self):
        return self.chain[0]


def _password_bytes(password):
    if password is None:
        return None
    return password.encode() if isinstance(password, str) else bytes(password)


def _read(location, what):
    try:
        with open(location, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise SslConfigError("Failed to load SSL %s %s: %s" % (what, location, error)) from None


def load_key_material(store_type, location, store_password, key_password=None):
    """The key and chain of a keystore (JKS, PKCS12 or PEM); ``key_password`` defaults to the store's."""
    store_type = str(store_type).upper()
    data = _read(location, "keystore")
    try:
        if store_type == "PKCS12":
            key, cert, extra = pkcs12.load_key_and_certificates(data, _password_bytes(store_password))
            if key is None or cert is None:
                raise SslConfigError("Keystore %s holds no private key entry" % location)
            return KeyMaterial(key, [cert] + list(extra or []))
        if store_type == "JKS":
            return _jks_key_material(data, store_password, key_password, location)
        if store_type == "PEM":
            key = serialization.load_pem_private_key(data, _password_bytes(key_password))
            return KeyMaterial(key, x509.load_pem_x509_certificates(data))
    except SslConfigError:
        raise
    except Exception as error:
        raise SslConfigError("Failed to load SSL keystore %s of type %s: %s" % (location, store_type, error)) from None
    raise SslConfigError("Failed to load SSL keystore %s of type %s" % (location, store_type))


def _jks_key_material(data, store_password, key_password, location):
    import jks  # pyjks: only needed for JKS stores

    store = jks.KeyStore.loads(data, store_password or "", try_decrypt_keys=True)
    for entry in store.private_keys.values():
        if not entry.is_decrypted():
            entry.decrypt(key_password or "")
        key = serialization.load_der_private_key(entry.pkey_pkcs8, None)
        chain = [x509.load_der_x509_certificate(cert[1]) for cert in entry.cert_chain]
        return KeyMaterial(key, chain)
    raise SslConfigError("Keystore %s holds no private key entry" % location)


def load_trusted_certificates(store_type, location, store_password=None):
    """The certificates a truststore (JKS, PKCS12 or PEM) trusts."""
    store_type = str(store_type).upper()
    data = _read(location, "truststore")
    try:
        if store_type == "PEM":
            return x509.load_pem_x509_certificates(data)
        if store_type == "PKCS12":
            loaded = pkcs12.load_pkcs12(data, _password_bytes(store_password))
            certs = [entry.certificate for entry in loaded.additional_certs]
            if loaded.cert is not None:
                certs.append(loaded.cert.certificate)
            return certs
        if store_type == "JKS":
            import jks

            store = jks.KeyStore.loads(data, store_password or "", try_decrypt_keys=False)
            certs = [x509.load_der_x509_certificate(entry.cert) for entry in store.certs.values()]
            for entry in store.private_keys.values():
                certs.extend(x509.load_der_x509_certificate(cert[1]) for cert in entry.cert_chain[:1])
            return certs
    except Exception as error:
        raise SslConfigError(
            "Failed to load SSL truststore %s of type %s: %s" % (location, store_type, error)
        ) from None
    raise SslConfigError("Failed to load SSL truststore %s of type %s" % (location, store_type))


def key_material(settings):
    """The keystore of the settings, or None when ssl.keystore.location is unset."""
    location = settings["ssl.keystore.location"]
    if not location:
        return None
    return load_key_material(
        settings["ssl.keystore.type"], location, settings["ssl.keystore.password"], settings["ssl.key.password"]
    )


def trusted_certificates(settings):
    """The truststore's certificates (plus ssl.ca.location's), or None to trust the system's CAs."""
    certs = None
    if settings["ssl.truststore.location"]:
        certs = load_trusted_certificates(
            settings["ssl.truststore.type"], settings["ssl.truststore.location"], settings["ssl.truststore.password"]
        )
    if settings.get("ssl.ca.location"):
        certs = (certs or []) + load_trusted_certificates("PEM", settings["ssl.ca.location"])
    return certs


def _base_context(settings):
    validate(settings)
    context = SSL.Context(SSL.TLS_METHOD)
    enabled = tls_versions(settings)
    positions = sorted(_ORDER.index(name) for name in enabled)
    context.set_min_proto_version(_VERSION_CODES[_ORDER[positions[0]]])
    context.set_max_proto_version(_VERSION_CODES[_ORDER[positions[-1]]])
    options = SSL.OP_NO_COMPRESSION
    for name in _ORDER[positions[0] : positions[-1] + 1]:
        if name not in enabled:  # a gap in the enabled range
            options |= _NO_VERSION_OPTIONS[name]
    context.set_options(options)
    tls12, tls13 = openssl_ciphers(settings)
    try:
        if tls12 is not None:
            if tls12:
                context.set_cipher_list(tls12.encode())
            else:
                context.set_options(SSL.OP_NO_TLSv1 | SSL.OP_NO_TLSv1_1 | SSL.OP_NO_TLSv1_2)
        if tls13 is not None:
            if tls13:
                context.set_tls13_ciphersuites(tls13.encode())
            else:
                context.set_options(SSL.OP_NO_TLSv1_3)
    except SSL.Error as error:
        raise SslConfigError("Unsupported cipher suites %s: %s" % (settings["ssl.cipher.suites"], error)) from None
    return context


def _use_key_material(context, material):
    context.use_certificate(material.certificate)
    context.use_privatekey(material.key)
    for cert in material.chain[1:]:
        context.add_extra_chain_cert(cert)
    context.check_privatekey()


def _trust(context, certificates):
    if certificates is None:
        context.set_default_verify_paths()
        return
    store = context.get_cert_store()
    for cert in certificates:
        try:
            store.add_cert(crypto.X509.from_cryptography(cert))
        except crypto.Error:
            pass  # the same certificate twice


def _accept_verified(_connection, _cert, _errno, _depth, ok):
    return bool(ok)


def server_context(settings):
    """The context of a TLS listener: its keystore (required), and with ssl.client.auth requested or required
    the truststore its clients' certificates are checked against."""
    context = _base_context(settings)
    material = key_material(settings)
    if material is None:
        raise SslConfigError("SSL key store is not specified for the listener (ssl.keystore.location)")
    _use_key_material(context, material)
    client_auth = str(settings["ssl.client.auth"]).lower()
    if client_auth == "none":
        context.set_verify(SSL.VERIFY_NONE)
    else:
        trusted = trusted_certificates(settings)
        _trust(context, trusted)
        mode = SSL.VERIFY_PEER | (SSL.VERIFY_FAIL_IF_NO_PEER_CERT if client_auth == "required" else 0)
        context.set_verify(mode, _accept_verified)
    context.set_session_id(b"kafka-zk")  # OpenSSL resumes sessions of verified peers only with an id context
    return context


def client_context(settings):
    """The context of a client: the server's certificate checked against the truststore (the system's CAs
    without one), and the keystore presented when the server asks."""
    context = _base_context(settings)
    _trust(context, trusted_certificates(settings))
    context.set_verify(SSL.VERIFY_PEER, _accept_verified)
    material = key_material(settings)
    if material is not None:
        _use_key_material(context, material)
    return context


def cipher_list_of(settings):
    """For clients built on the stdlib ssl module: the TLS 1.2 cipher list, or None for the defaults."""
    return openssl_ciphers(settings)[0]


def enabled_protocols(settings):
    return [name for name in _ORDER if name in as_list(settings["ssl.enabled.protocols"])]
