"""DeleteTopics (key 20): mark topics for deletion in ZooKeeper and wait for them to go."""

from twisted.internet import defer

API_KEY = 20


@defer.inlineCallbacks
def handle(request, *, admin):
    body = request.body
    outcomes = yield admin.delete_topics(body["topic_names"], body["timeout_ms"])
    return {"throttle_time_ms": 0,
            "responses": [{"name": name, "error_code": code} for name, code in outcomes]}
