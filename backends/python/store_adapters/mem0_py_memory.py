"""The Python mem0ai Memory as a memory system behind the stalebench store driver: one local Qdrant store per namespace.

The harness decides every argument (which text, which expiration_date, which read switches) and computes every
vector with the run's embedder; this module only makes mem0's own calls (add with infer=False, search, get_all) and
returns what mem0 returned. mem0's embedder is a stand-in that hands mem0 the vector the harness sent with each text
(EmbedderConfig accepts only fixed provider names, so the openai provider is configured with a dummy key and a dead
loopback URL and then replaced: no call is made). Ops (backends/python/PROTOCOL.md): reset, insert, search, list.
"""

import json
import os
import shutil

from store_adapters.mem0_py_store import close_memory, open_memory_with, versions

USER = "stalebench"
LIST_LIMIT = 100_000
# Read switches the harness may set; anything else is a harness fault, never passed through silently.
SEARCH_OPTIONS = frozenset({"show_expired", "query_vector", "metadata_filter"})


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the library's refusal)."""

    origin = "driver"


def _plain(value):
    return json.loads(json.dumps(value, default=str))


def describe(config):
    found = versions()
    return {
        "label": f"mem0ai {found['mem0ai']} (Python)",
        "versions": found,
        "store": f"one qdrant-client {found['qdrant-client']} local on-disk store and history.db per namespace",
        "config": {"search defaults": "top_k from the harness, threshold 0.1, rerank False (mem0's)", "embedder": "the run's vectors, sent with each text"},
    }


def given_vectors_embedder(embedding_base):
    class GivenVectors(embedding_base):
        """mem0's embedder: the vector the harness computed for exactly this text, else a harness fault."""

        def __init__(self):
            super().__init__()
            self.vectors = {}

        def embed(self, text, memory_action=None):
            if text not in self.vectors:
                raise RequestError(f"no vector was sent for the text {text[:80]!r}")
            return self.vectors[text]

    return GivenVectors()


class MemoryStore:
    """Namespaces under one directory: `<dir>/<namespace>/{qdrant,history.db}`, each its own mem0 Memory."""

    def __init__(self, directory, config):
        self.directory = directory
        self.dimensions = int(config.get("dimensions") or 0)
        if self.dimensions <= 0:
            raise RequestError("open needs config.dimensions, the run embedder's vector length")
        self.memories = {}

    def _path(self, namespace):
        if not isinstance(namespace, str) or namespace in ("", ".", "..") or "/" in namespace or "\\" in namespace:
            raise RequestError(f"namespace {namespace!r} is not a plain directory name")
        return os.path.join(self.directory, namespace)

    def _memory(self, namespace):
        if namespace not in self.memories:
            path = self._path(namespace)
            os.makedirs(os.path.join(path, "qdrant"), exist_ok=True)
            self.memories[namespace] = open_memory_with(self.directory, os.path.join(path, "qdrant"), os.path.join(path, "history.db"), self.dimensions, given_vectors_embedder)
        return self.memories[namespace]

    def reset(self, namespace):
        path = self._path(namespace)
        memory = self.memories.pop(namespace, None)
        if memory is not None:
            close_memory(memory)
        if os.path.isdir(path):
            shutil.rmtree(path)
        return {}

    def insert(self, namespace, steps, extractor=None):
        """Runs each step in order: {"add": {text, vector, expiration_date?, metadata?}}, all with infer=False."""
        if extractor is not None:
            raise RequestError("mem0-py writes verbatim (infer=False): no extractor")
        memory = self._memory(namespace)
        ids = []
        for step in steps:
            if "add" not in step:
                raise RequestError(f"unknown insert step {sorted(step)}")
            call = step["add"]
            memory.embedding_model.vectors[call["text"]] = call["vector"]
            expiry = {"expiration_date": call["expiration_date"]} if call.get("expiration_date") else {}
            added = memory.add(call["text"], user_id=USER, infer=False, metadata=call.get("metadata") or None, **expiry)
            ids.extend(item["id"] for item in added["results"])
        return {"ids": ids, "stored": len(self._all(memory)), "history": {}}

    def _all(self, memory):
        return memory.get_all(filters={"user_id": USER}, top_k=LIST_LIMIT, show_expired=True)["results"]

    def search(self, namespace, query, k, options):
        unknown = sorted(set(options) - SEARCH_OPTIONS)
        if unknown:
            raise RequestError(f"search options {unknown} are not passed through; allowed: {sorted(SEARCH_OPTIONS)}")
        if "query_vector" not in options:
            raise RequestError("search needs options.query_vector, the run embedder's vector of the query")
        memory = self._memory(namespace)
        memory.embedding_model.vectors[query] = options["query_vector"]
        filters = {**(options.get("metadata_filter") or {}), "user_id": USER}
        switches = {"show_expired": bool(options["show_expired"])} if "show_expired" in options else {}
        found = memory.search(query, top_k=k, filters=filters, **switches)
        return {"records": _plain(found["results"]), "invalidated_at": {}}

    def list(self, namespace):
        return {"records": _plain(self._all(self._memory(namespace)))}

    def close(self):
        for memory in self.memories.values():
            close_memory(memory)
        self.memories.clear()


def open_store(directory, config):
    return MemoryStore(directory, config)
