"""inspeximus as a memory system behind the stalebench store driver: one store per namespace, the library's own calls.

The harness decides every argument (which text, which key, which valid_from, which recall switches); this module
only makes those calls through inspeximus' public API and returns what the library returned, so nothing about the
library is modelled here. Ops (backends/python/PROTOCOL.md): reset, insert, search, list.

Open config (all optional): {"store": "shared"} keeps every namespace in one store (`<dir>/shared/memory.db`), the
harness scoping reads and writes by the library's own user_id (a reset then forgets that user's records through
forget()); {"trust_seeds": [...]} sets the store's trust root (`trust_seeds`, read by recall(trusted_only=True)).
"""

import json
import os
import shutil

STORE_FILE = "memory.db"
# recall() keyword arguments the harness may set; anything else is a harness fault, never passed through silently.
RECALL_OPTIONS = frozenset({"include_superseded", "suppress_stale_values", "where", "user_id", "trusted_only"})
# remember() keyword arguments a step may carry; "attest" is the writer's own inspeximus.attest() made before it.
REMEMBER_FIELDS = frozenset({"text", "key", "valid_from", "meta", "user_id", "source", "attest"})
SHARED_STORE = "shared"
EXTRACTORS = ("regex_extractor",)


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the library's refusal)."""

    origin = "driver"


def _plain(value):
    """The value as JSON types (the library returns dicts of str/float/bool/list; anything else becomes its str)."""
    return json.loads(json.dumps(value, default=str))


def _recall_defaults():
    import inspect

    from inspeximus import Inspeximus

    parameters = inspect.signature(Inspeximus.recall).parameters
    return {name: parameters[name].default for name in ("k", "mode", "min_relevance", "include_superseded", "suppress_stale_values")}


def describe(config):
    import importlib.metadata

    import inspeximus  # noqa: F401  (ImportError here means: not installed)

    return {
        "label": f"inspeximus {importlib.metadata.version('inspeximus')}",
        "versions": {"inspeximus": importlib.metadata.version("inspeximus")},
        "store": f"one inspeximus store ({STORE_FILE}, SQLite row store) per namespace, no embedder (embed=None)",
        "config": {"recall defaults": _plain(_recall_defaults()), "extractors": list(EXTRACTORS)},
    }


class MemoryStore:
    """Namespaces under one directory: `<dir>/<namespace>/memory.db`, each its own `Inspeximus` handle."""

    def __init__(self, directory, config):
        import inspeximus  # noqa: F401  (fails here, at open, when the package is missing)

        # The library's defaults, not whatever INSPEXIMUS_* the harness's shell carries (its user config is in the
        # process's HOME, which the harness points at an empty directory).
        self.opened = {"environment_removed": sorted(name for name in os.environ if name.startswith("INSPEXIMUS_"))}
        for name in self.opened["environment_removed"]:
            del os.environ[name]
        self.directory = directory
        self.handles = {}
        self.shared = config.get("store") == "shared"
        if config.get("store") not in (None, "shared"):
            raise RequestError(f"store {config.get('store')!r}: only 'shared' (one store, users by user_id) is known")
        self.trust_seeds = set(config.get("trust_seeds") or [])
        self.opened.update({"store": SHARED_STORE if self.shared else "per namespace", "trust_seeds": sorted(self.trust_seeds)})

    def _path(self, namespace):
        if not isinstance(namespace, str) or namespace in ("", ".", "..") or "/" in namespace or "\\" in namespace:
            raise RequestError(f"namespace {namespace!r} is not a plain directory name")
        return os.path.join(self.directory, namespace)

    def _handle(self, namespace):
        from inspeximus import Inspeximus

        self._path(namespace)  # refuses a name that is not a plain directory name, in both layouts
        name = SHARED_STORE if self.shared else namespace
        if name not in self.handles:
            memory = Inspeximus(os.path.join(self._path(name), STORE_FILE))
            if self.trust_seeds:
                memory.trust_seeds = set(self.trust_seeds)
            self.handles[name] = memory
        return self.handles[name]

    def reset(self, namespace):
        if self.shared:
            # One store holds every user: remove this user's records through the library's hard delete.
            self._path(namespace)
            memory = self._handle(namespace)
            memory.forget(where=lambda record: (record.get("meta") or {}).get("uid") == namespace)
            memory.flush()
            return {}
        path = self._path(namespace)
        self.handles.pop(namespace, None)
        if os.path.isdir(path):
            shutil.rmtree(path)
        return {}

    def insert(self, namespace, steps, extractor=None):
        """Runs each step in order: {"remember": {text, key?, valid_from?, meta?}} or {"retire": {key, reason}}."""
        import inspeximus

        memory = self._handle(namespace)
        if extractor is not None and extractor not in EXTRACTORS:
            raise RequestError(f"unknown extractor {extractor!r}; shipped: {', '.join(EXTRACTORS)}")
        memory.extractor = getattr(inspeximus, extractor) if extractor else None
        ids = []
        try:
            for step in steps:
                if "remember" in step:
                    call = step["remember"]
                    unknown = sorted(set(call) - REMEMBER_FIELDS)
                    if unknown:
                        raise RequestError(f"remember fields {unknown} are not passed through; allowed: {sorted(REMEMBER_FIELDS)}")
                    extra = {name: call[name] for name in ("user_id", "source") if call.get(name) is not None}
                    if call.get("attest") is not None:
                        # The writer attests its own write with its key (the library's attest()); remember() then
                        # verifies the signature and stamps attested_key, or raises on one that does not verify.
                        source = call.get("source")
                        doc = source.get("doc") if isinstance(source, dict) else None
                        signer = call["attest"]
                        extra["attestation"] = (signer["pubkey"], inspeximus.attest(call["text"], signer["secret"], doc))
                    ids.append(memory.remember(call["text"], key=call.get("key"), valid_from=call.get("valid_from"), meta=call.get("meta"), **extra))
                elif "retire" in step:
                    memory.retire(step["retire"]["key"], reason=step["retire"]["reason"])
                else:
                    raise RequestError(f"unknown insert step {sorted(step)}")
        finally:
            memory.extractor = None
        memory.flush()
        if self.shared:
            return {"ids": ids, "stored": len(ids), "history": {}}
        keys = sorted({record.get("key") for record in memory.items if record.get("key")})
        return {"ids": ids, "stored": len(memory.items), "history": {key: _plain(memory.history(key)) for key in keys}}

    def search(self, namespace, query, k, options):
        unknown = sorted(set(options) - RECALL_OPTIONS)
        if unknown:
            raise RequestError(f"recall options {unknown} are not passed through; allowed: {sorted(RECALL_OPTIONS)}")
        memory = self._handle(namespace)
        found = _plain(memory.recall(query, k=k, **options))
        # recall() marks a retired row only with `superseded: true`; when it was retired is in history(key).
        retired = {}
        for key in {record.get("key") for record in found if record.get("superseded") and record.get("key")}:
            retired.update({entry["id"]: entry.get("invalidated_at") for entry in memory.history(key)})
        return {"records": found, "invalidated_at": {record["id"]: retired.get(record["id"]) for record in found if record.get("superseded")}}

    def list(self, namespace):
        memory = self._handle(namespace)
        fields = ("id", "text", "key", "status", "iso", "valid_from", "invalidated_at", "meta")
        return {"records": [_plain({name: record.get(name) for name in fields}) for record in memory.items]}

    def close(self):
        for memory in self.handles.values():
            memory.flush()
        self.handles.clear()


def open_store(directory, config):
    return MemoryStore(directory, config)
