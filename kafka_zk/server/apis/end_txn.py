"""EndTxn (key 26): commit or abort a transaction; answered once PrepareCommit/PrepareAbort is in the log."""

API_KEY = 26


def handle(request, *, txn_coordinator):
    body = request.body
    result = txn_coordinator.handle_end_txn(body["transactional_id"], body["producer_id"],
                                            body["producer_epoch"], body["committed"])
    return result.addCallback(lambda error: {"throttle_time_ms": 0, "error_code": error})
