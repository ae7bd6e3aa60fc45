"""Exceptions of our protocol client: connection failures and error codes returned by brokers."""

from kafka_zk.protocol.errors import Errors


class KafkaClientError(Exception):
    """Base of every client error."""


class KafkaConnectionError(KafkaClientError):
    """The broker could not be reached, closed the connection, or did not answer in time."""


class SaslAuthenticationError(KafkaClientError):
    """The broker refused the SASL login (Kafka's SaslAuthenticationException), or it could not be attempted."""


class SslAuthenticationError(KafkaConnectionError):
    """The TLS handshake failed: the broker's certificate is not trusted, expired or names another host, or the
    broker refused ours (Kafka's SslAuthenticationException)."""


class UnsupportedVersionError(KafkaClientError):
    """The broker and this client share no version of an API."""


class KafkaResponseError(KafkaClientError):
    """A broker answered with an error code; ``error`` is the Errors member, ``message`` its text."""

    def __init__(self, error, message=None, context=None):
        self.error = error if isinstance(error, Errors) else Errors.from_code(int(error))
        self.message = message or self.error.message
        self.context = context
        where = " (%s)" % context if context else ""
        super().__init__("%s%s: %s" % (self.error.name, where, self.message))

    @property
    def retriable(self):
        return self.error.retriable


def raise_for_error(error_code, message=None, context=None):
    """Raise KafkaResponseError unless ``error_code`` is NONE."""
    if error_code:
        raise KafkaResponseError(error_code, message, context)
