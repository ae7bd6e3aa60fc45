"""The failures a SASL exchange ends in, as Kafka tells them apart."""


class SaslFailure(Exception):
    """Authentication failed for a reason the client is not told: Kafka answers a generic message
    ("Authentication failed during authentication due to invalid credentials with SASL mechanism X")."""


class SaslAuthenticationFailure(SaslFailure):
    """Authentication failed; the message is safe to send to the client as it is."""


class IllegalSaslState(SaslFailure):
    """A token or request that is not valid at this point of the exchange."""
