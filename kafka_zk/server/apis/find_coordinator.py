"""FindCoordinator (key 10): no group or transaction coordinator runs on this broker yet.

Served anyway, answering COORDINATOR_NOT_AVAILABLE, because clients probe for it: librdkafka, for one,
only enables LZ4 on brokers that advertise this API.
"""

from kafka_zk.protocol.errors import Errors

API_KEY = 10


def handle(server, request):
    return {"throttle_time_ms": 0, "error_code": Errors.COORDINATOR_NOT_AVAILABLE,
            "error_message": "The coordinator is not available.", "node_id": -1, "host": "", "port": -1}
