"""Handler-level authorization tests' doubles: an authorizer holding a set of grants, requests with a principal,
and collaborators that record every call (a denied request must leave them untouched)."""

from types import SimpleNamespace

from twisted.internet import defer

from kafka_zk.security.authorizer import CLUSTER_NAME, ResourceType
from kafka_zk.security.principal import user

ALICE = user("alice")


class GrantedAuthorizer:
    """Allows exactly the granted (str(principal), operation, resource_type, name) tuples; records each question."""

    def __init__(self, *grants):
        self.grants = {
            (str(principal), operation, resource_type, name) for principal, operation, resource_type, name in grants
        }
        self.asked = []

    def authorize(self, principal, host, operation, resource_type, resource_name):
        self.asked.append((str(principal), operation, resource_type, resource_name))
        return (str(principal), operation, resource_type, resource_name) in self.grants


def grant(operation, resource_type, name, principal=ALICE):
    return (principal, operation, resource_type, name)


def cluster(operation, principal=ALICE):
    return (principal, operation, ResourceType.CLUSTER, CLUSTER_NAME)


def request(api_key, version, body, principal=ALICE):
    return SimpleNamespace(
        api_key=api_key,
        api_version=version,
        body=body,
        principal=principal,
        client_host="127.0.0.1",
        client_id="client",
        correlation_id=1,
        size=100,
        received_ms=0,
        listener_name="PLAINTEXT",
        security_protocol="PLAINTEXT",
    )


class Spy:
    """A collaborator that records every method call: keyword arguments that are callables answer the method of
    that name, the others are plain attributes; any other method answers None."""

    def __init__(self, **members):
        self.calls = []
        self._answers = {}
        for name, value in members.items():
            if callable(value):
                self._answers[name] = value
            else:
                setattr(self, name, value)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def method(*args, **kwargs):
            self.calls.append(name)
            answer = self._answers.get(name)
            return answer(*args, **kwargs) if answer is not None else None

        return method


def result_of(outcome):
    """A handler's answer, whether it returned it or a Deferred that already fired."""
    if isinstance(outcome, defer.Deferred):
        answered = []
        outcome.addBoth(answered.append)
        assert answered, "the handler's Deferred has not fired"
        return answered[0]
    return outcome
