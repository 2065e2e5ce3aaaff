"""LangGraph's Python SqliteStore (long-term memory) behind the stalebench store driver, as a memory system.

One SqliteStore over one SQLite file (`store.db` under the driver's dir) with its vector index (sqlite-vec) over the
`text` field of each value. A namespace is the store namespace ("memories", <namespace>): written with
put(namespace, key, value, index=["text"]), read with search(namespace, query=..., limit=k[, filter=...]), every
other parameter at its default, reset by delete() of each of its items. Ops (backends/python/PROTOCOL.md): reset,
insert, search, list.

Why each put names index=["text"]: SqliteStore 3.1.1 and 3.1.2 read the index's default fields from the config key
`text_fields`, while IndexConfig, InMemoryStore and SqliteStore's own docstring use `fields`; an index configured as
documented (`"fields": ["text"]`, kept here) is silently ignored and the whole value (its JSON, the writer metadata
with it) is embedded. put()'s documented `index` argument says which field to embed whatever the config key.

The index's embed function is the harness's embedder: the harness embeds every text it writes or queries with the
run's embedder and hands the vectors over (insert step {"embed": {text, vector}}, search option `query_vector`);
the store calls embed() on put and on search as it always does, and a text it was not handed is a driver error,
never a vector made up here. Nothing about storage, scoping or ranking is modelled: those are the store's.

Open config: {"dims": <vector length>} (required).
"""

import os
import sqlite3

STORE_FILE = "store.db"
ROOT_LABEL = "memories"
SEARCH_OPTIONS = frozenset({"query_vector", "filter"})
INDEXED_FIELDS = ["text"]


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the store's refusal)."""

    origin = "driver"


def _versions():
    import importlib.metadata

    return {name: importlib.metadata.version(name) for name in ("langgraph-checkpoint-sqlite", "langgraph-checkpoint", "sqlite-vec")}


def describe(config):
    from langgraph.store.sqlite import SqliteStore  # noqa: F401  (ImportError here means: not installed)
    import sqlite_vec  # noqa: F401

    versions = _versions()
    return {
        "label": f"LangGraph Python SqliteStore (langgraph-checkpoint-sqlite {versions['langgraph-checkpoint-sqlite']}), vector index (sqlite-vec {versions['sqlite-vec']})",
        "versions": versions,
        "store": f"SQLite {sqlite3.sqlite_version}, one file: {STORE_FILE}",
        "config": {"index": {"dims": config.get("dims"), "fields": INDEXED_FIELDS, "distance_type": "cosine (default)"}, "put": "index=['text']", "embed": "the harness's embedder (vectors handed over per text)"},
    }


class HandedEmbeddings:
    """The index's embed function: the vector the harness handed for each text, exactly; any other text is refused."""

    def __init__(self, dims):
        self.dims = dims
        self.vectors = {}

    def hand(self, text, vector):
        if not isinstance(text, str) or not isinstance(vector, list) or len(vector) != self.dims:
            raise RequestError(f"an embedding must be a text and {self.dims} numbers")
        self.vectors[text] = [float(value) for value in vector]

    def __call__(self, texts):
        missing = [text for text in texts if text not in self.vectors]
        if missing:
            raise RequestError(f"the store asked to embed {len(missing)} text(s) the harness did not hand over, e.g. {missing[0]!r}")
        return [self.vectors[text] for text in texts]


class MemoryStore:
    def __init__(self, directory, config):
        from langgraph.store.sqlite import SqliteStore

        dims = config.get("dims")
        if not isinstance(dims, int) or dims <= 0:
            raise RequestError("open config needs dims, the embedder's vector length")
        os.makedirs(directory, exist_ok=True)
        self.embeddings = HandedEmbeddings(dims)
        self.connection = sqlite3.connect(os.path.join(directory, STORE_FILE), check_same_thread=False, isolation_level=None)
        self.store = SqliteStore(self.connection, index={"dims": dims, "embed": self.embeddings, "fields": INDEXED_FIELDS})
        self.store.setup()
        self.opened = {"versions": _versions()}

    @staticmethod
    def _namespace(namespace):
        if not isinstance(namespace, str) or namespace == "":
            raise RequestError(f"namespace {namespace!r} is not a name")
        return (ROOT_LABEL, namespace)

    def reset(self, namespace):
        ns = self._namespace(namespace)
        for item in self.store.search(ns, limit=100_000):
            self.store.delete(ns, item.key)
        return {}

    def insert(self, namespace, steps, extractor=None):
        """Runs each step in order: {"embed": {text, vector}} (hands a vector over) or {"put": {key, value}}."""
        if extractor is not None:
            raise RequestError("SqliteStore has no extractor")
        ns = self._namespace(namespace)
        keys = []
        for step in steps:
            if "embed" in step:
                self.embeddings.hand(step["embed"].get("text"), step["embed"].get("vector"))
            elif "put" in step:
                self.store.put(ns, step["put"]["key"], step["put"]["value"], index=INDEXED_FIELDS)
                keys.append(step["put"]["key"])
            else:
                raise RequestError(f"unknown insert step {sorted(step)}")
        return {"ids": keys, "stored": len(keys), "history": {}}

    def search(self, namespace, query, k, options):
        unknown = sorted(set(options) - SEARCH_OPTIONS)
        if unknown:
            raise RequestError(f"search options {unknown} are not passed through; allowed: {sorted(SEARCH_OPTIONS)}")
        if "query_vector" not in options:
            raise RequestError("a search needs the query's vector (query_vector)")
        self.embeddings.hand(query, options["query_vector"])
        filter_ = options.get("filter")
        items = self.store.search(self._namespace(namespace), query=query, limit=k, **({"filter": filter_} if filter_ else {}))
        return {"records": [_record(item) for item in items]}

    def list(self, namespace):
        return {"records": [_record(item) for item in self.store.search(self._namespace(namespace), limit=100_000)]}

    def close(self):
        self.connection.close()


def _record(item):
    return {"key": item.key, "value": item.value, "score": item.score, "created_at": item.created_at.isoformat()}


def open_store(directory, config):
    return MemoryStore(directory, config)
