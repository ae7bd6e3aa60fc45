"""KafkaPrincipal: who a connection is, as ACLs name it (``User:alice``)."""

from __future__ import annotations

from typing import NamedTuple

USER_TYPE = "User"


class KafkaPrincipal(NamedTuple):
    principal_type: str
    name: str

    def __str__(self) -> str:
        return "%s:%s" % (self.principal_type, self.name)

    @classmethod
    def parse(cls, text: str) -> "KafkaPrincipal":
        """``User:alice`` -> KafkaPrincipal("User", "alice"); raises ValueError without a type."""
        principal_type, separator, name = text.partition(":")
        if not separator or not principal_type:
            raise ValueError("expected a string in format principalType:principalName but got %s" % text)
        return cls(principal_type, name)


ANONYMOUS = KafkaPrincipal(USER_TYPE, "ANONYMOUS")


def user(name: str) -> KafkaPrincipal:
    return KafkaPrincipal(USER_TYPE, name)
