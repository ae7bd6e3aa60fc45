"""CreatePartitions (key 37): add partitions to existing topics through their ZooKeeper assignment."""

from twisted.internet import defer

API_KEY = 37


@defer.inlineCallbacks
def handle(request, *, admin):
    body = request.body
    requests = [(topic["name"], topic["count"],
                 None if topic["assignments"] is None else [entry["broker_ids"] for entry in topic["assignments"]])
                for topic in body["topics"]]
    outcomes = yield admin.create_partitions(requests, body["timeout_ms"], body["validate_only"])
    return {"throttle_time_ms": 0,
            "results": [{"name": name, "error_code": code, "error_message": message}
                        for name, code, message in outcomes]}
