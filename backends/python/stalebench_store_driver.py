"""Store driver for stalebench's process adapter: one Python store behind JSON lines on stdin/stdout.

Protocol (backends/python/PROTOCOL.md): each request is one JSON object per line, {"id", "op", ...}; each
response is one line, {"id", "ok": true, "result"} or {"id", "ok": false, "error": {"type", "message", "origin"}}.
origin "target" means the store's own code raised (a refusal the harness records); "driver" means the request
itself was bad. Nothing else is written to stdout: the store's own prints are redirected to stderr.
"""

import contextlib
import importlib
import io
import json
import os
import platform
import sqlite3
import sys
import traceback

PROTOCOL = 1
HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTERS = sorted(name[:-3] for name in os.listdir(os.path.join(HERE, "store_adapters")) if name.endswith(".py") and not name.startswith("_"))


class DriverError(Exception):
    """A bad request (unknown op, a missing field, no open store): reported with origin "driver". An adapter raises
    its own exception class with the attribute `origin = "driver"` for the same meaning."""


def need(request, field):
    if field not in request:
        raise DriverError(f"request {request.get('op')!r} needs the field {field!r}")
    return request[field]


def load_adapter(name):
    if name not in ADAPTERS:
        raise DriverError(f"unknown adapter {name!r}; available: {', '.join(ADAPTERS)}")
    sys.path.insert(0, HERE)
    return importlib.import_module(f"store_adapters.{name}")


class Driver:
    def __init__(self):
        self.store = None

    def hello(self, request):
        return {"protocol": PROTOCOL, "python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "adapters": ADAPTERS, "ops": list(OPS)}

    def version(self, request):
        module = load_adapter(need(request, "adapter"))
        try:
            described = module.describe(request.get("config") or {})
        except ImportError as error:
            return {"adapter": need(request, "adapter"), "available": False, "reason": f"{type(error).__name__}: {error}"}
        return {"adapter": need(request, "adapter"), "available": True, **described}

    def open(self, request):
        if self.store is not None:
            raise DriverError("a store is already open in this process")
        module = load_adapter(need(request, "adapter"))
        self.store = module.open_store(need(request, "dir"), request.get("config") or {})
        return dict(getattr(self.store, "opened", {}))

    def _open_store(self):
        if self.store is None:
            raise DriverError("no open store: send open first")
        return self.store

    def seed(self, request):
        return {"ids": self._open_store().seed(need(request, "context"), need(request, "records"))}

    def read(self, request):
        return self._open_store().read(need(request, "context"))

    def audit(self, request):
        store = self._open_store()
        if not hasattr(store, "audit"):
            raise DriverError("this store has no audit")
        return store.audit(need(request, "context"))

    def raw_paths(self, request):
        return self._open_store().raw_paths()

    def _memory(self, op):
        """The open store's memory-system method `op` (reset, insert, search, list); a DriverError if it has none."""
        method = getattr(self._open_store(), op, None)
        if not callable(method):
            raise DriverError(f"this store is not a memory system: it has no {op}")
        return method

    def reset(self, request):
        return self._memory("reset")(need(request, "namespace"))

    def insert(self, request):
        return self._memory("insert")(need(request, "namespace"), need(request, "steps"), request.get("extractor"))

    def search(self, request):
        return self._memory("search")(need(request, "namespace"), need(request, "query"), need(request, "k"), request.get("options") or {})

    def list(self, request):
        return self._memory("list")(need(request, "namespace"))

    def close(self, request):
        if self.store is not None:
            self.store.close()
            self.store = None
        return {}


OPS = {
    "hello": "hello", "version": "version", "open": "open", "close": "close",
    # integrity targets (pipeline/suites/integrity/targets/python-store-target.ts)
    "seed": "seed", "read": "read", "audit": "audit", "raw-paths": "raw_paths",
    # memory systems (backends/python/python-memory-process.ts)
    "reset": "reset", "insert": "insert", "search": "search", "list": "list",
}


def answer(driver, line):
    """The response to one request line, and whether the driver should exit after it (a successful close)."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise ValueError("not an object")
    except ValueError as error:
        return {"id": None, "ok": False, "error": {"type": "DriverError", "message": f"not a JSON request object: {error}", "origin": "driver"}}, False
    request_id = request.get("id")
    op = OPS.get(request.get("op"))
    if op is None:
        return {"id": request_id, "ok": False, "error": {"type": "DriverError", "message": f"unknown op {request.get('op')!r}; ops: {', '.join(OPS)}", "origin": "driver"}}, False
    try:
        with contextlib.redirect_stdout(sys.stderr):
            result = getattr(driver, op)(request)
        return {"id": request_id, "ok": True, "result": result}, op == "close"
    except Exception as error:
        if isinstance(error, DriverError) or getattr(error, "origin", None) == "driver":  # an adapter's "bad request"
            return {"id": request_id, "ok": False, "error": {"type": "DriverError", "message": str(error), "origin": "driver"}}, False
        # the store's own code raised: its refusal, recorded with its type
        traceback.print_exc(file=sys.stderr)
        return {"id": request_id, "ok": False, "error": {"type": type(error).__name__, "message": str(error), "origin": "target"}}, False


def main():
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n", write_through=True)
    driver = Driver()
    for line in io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"):
        if not line.strip():
            continue
        response, done = answer(driver, line)
        out.write(json.dumps(response, ensure_ascii=False) + "\n")
        if done:
            return
    with contextlib.suppress(Exception):
        driver.close({})


if __name__ == "__main__":
    main()
