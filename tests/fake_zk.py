"""A ReactorZkClient whose KafkaZkClient answers from a table: the code under test calls the real typed methods,
and a table entry that names no KafkaZkClient method is refused when the fake is built."""

from twisted.internet import defer

from kafka_zk.zk.client import KafkaZkClient
from kafka_zk.zk.reactor_client import ReactorZkClient


class TableZkClient:
    """Stands in for KafkaZkClient: each method answers its table entry (a value, or a function of the call's
    arguments); watch_* methods remember their callback by path, and session listeners are kept in order, so a
    test can fire them."""

    def __init__(self, answers):
        unknown = sorted(name for name in answers if not callable(getattr(KafkaZkClient, name, None)))
        if unknown:
            raise AttributeError("KafkaZkClient has no method %s" % ", ".join(unknown))
        self.answers = answers
        self.calls = []
        self.watches = {}
        self.session_listeners = []

    def __getattr__(self, name):
        if name.startswith("_") or not callable(getattr(KafkaZkClient, name, None)):
            raise AttributeError(name)

        def answer(*args):
            self.calls.append(name)
            if name.startswith("watch_"):
                self.watches[args[0]] = args[1]
                return None
            if name == "add_session_listener":
                self.session_listeners.append(args[0])
                return None
            entry = self.answers[name]
            return entry(*args) if callable(entry) else entry

        return answer


class FakeZk(ReactorZkClient):
    """ReactorZkClient over a TableZkClient, answering at once (no thread pool) and calling watchers in place."""

    def __init__(self, answers):
        super().__init__(TableZkClient(answers), reactor=None)
        self.calls = self.client.calls
        self.watches = self.client.watches
        self.session_listeners = self.client.session_listeners

    def _on_thread(self, method, *args):
        return defer.maybeDeferred(method, *args)

    def on_reactor(self, handler):
        return handler
