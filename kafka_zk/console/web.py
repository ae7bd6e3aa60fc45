"""The console's HTTP side (twisted.web): the page, its script and style from static/, and the JSON API the
script calls: GET /api/state?after=V (answered when the cluster changes or after ~2 s), GET /api/topics/<name>,
GET /api/metrics, POST /api/actions/<action> with a JSON body."""

import json
from pathlib import Path

from twisted.python import log
from twisted.web import pages, resource, server, static

STATIC = Path(__file__).resolve().parent / "static"
JSON_TYPE = b"application/json; charset=utf-8"
MAX_BODY = 1024 * 1024


def _write_json(request, status, payload):
    if request.finished or getattr(request, "_console_gone", False):
        return
    request.setResponseCode(status)
    request.setHeader(b"content-type", JSON_TYPE)
    request.setHeader(b"cache-control", b"no-store")
    request.write(json.dumps(payload).encode("utf-8"))
    request.finish()


def _deferred_json(request, deferred, missing=None):
    """Answer ``request`` with the Deferred's result as JSON (404 with ``missing`` when it is None)."""
    request.notifyFinish().addErrback(lambda _: setattr(request, "_console_gone", True))

    def answer(payload):
        if payload is None and missing is not None:
            _write_json(request, 404, {"error": missing})
        else:
            _write_json(request, 200, payload)

    def fail(failure):
        log.err(failure, "console API request failed")
        _write_json(request, 500, {"error": failure.getErrorMessage()})

    deferred.addCallbacks(answer, fail)
    return server.NOT_DONE_YET


class ApiResource(resource.Resource):
    isLeaf = True

    def __init__(self, service):
        super().__init__()
        self.service = service

    def render_GET(self, request):
        path = [part.decode("utf-8", "replace") for part in request.postpath if part]
        if path == ["state"]:
            after = request.args.get(b"after", [None])[0]
            try:
                after = None if after is None else int(after)
            except ValueError:
                after = None
            return _deferred_json(request, self.service.news(after))
        if len(path) == 2 and path[0] == "topics":
            return _deferred_json(request, self.service.topic_detail(path[1]), "no topic %s" % path[1])
        if path == ["metrics"]:
            request.setHeader(b"content-type", JSON_TYPE)
            request.setHeader(b"cache-control", b"no-store")
            return json.dumps(self.service.history.to_json()).encode("utf-8")
        request.setResponseCode(404)
        request.setHeader(b"content-type", JSON_TYPE)
        return json.dumps({"error": "no such API: /%s" % "/".join(path)}).encode("utf-8")

    def render_POST(self, request):
        path = [part.decode("utf-8", "replace") for part in request.postpath if part]
        # Only JSON bodies: a form on another site cannot send one without the browser's CORS preflight.
        content_type = (request.getHeader(b"content-type") or b"").split(b";")[0].strip().lower()
        if len(path) != 2 or path[0] != "actions":
            request.setResponseCode(404)
            return json.dumps({"error": "no such API"}).encode("utf-8")
        if content_type != b"application/json":
            request.setResponseCode(415)
            return json.dumps({"ok": False, "message": "send application/json"}).encode("utf-8")
        try:
            fields = json.loads(request.content.read(MAX_BODY) or b"{}")
            if not isinstance(fields, dict):
                raise ValueError("not an object")
        except ValueError as error:
            request.setResponseCode(400)
            return json.dumps({"ok": False, "message": "bad JSON: %s" % error}).encode("utf-8")
        return _deferred_json(request, self.service.run_action(path[1], fields))


class ConsoleRoot(resource.Resource):
    """/ is the page; /static/ its script and style; /api/ the JSON."""

    def __init__(self, service, static_dir=STATIC):
        super().__init__()
        self.static_dir = Path(static_dir)
        self.putChild(b"static", static.File(str(self.static_dir)))
        self.putChild(b"api", ApiResource(service))

    def getChild(self, path, request):
        if path in (b"", b"index.html"):
            return static.File(str(self.static_dir / "index.html"), defaultType="text/html")
        return pages.notFound()


class QuietSite(server.Site):
    """A Site that does not log every request (the pages ask every two seconds)."""

    def log(self, request):
        pass


def site(service, static_dir=STATIC):
    return QuietSite(ConsoleRoot(service, static_dir))
