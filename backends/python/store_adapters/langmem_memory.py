"""langmem over LangGraph's store as the paper's harness used it, behind the stalebench store driver.

One LangGraph InMemoryStore per namespace, with an embedding index {dims, embed} (the paper's configuration: the
whole value is embedded, LangGraph's default fields ["$"]), under the paper's namespace ("rebirth", "policies").
Direct writes are the harness's store.put / store.delete (a hard delete is langmem's revocation primitive); the read
is langmem's own create_search_memory_tool over that store, which runs with no model. Natural mode, only with
`config.llm` (the endpoint of the run's extraction model, the key from STALEBENCH_LLM_API_KEY), is the paper's
create_memory_store_manager(ChatOpenAI(temperature=0), namespace, store, enable_deletes=True), invoked once per
episode as a single user message. The harness decides every
argument (keys, texts, order); this module only makes those calls and returns what they returned. Embeddings come
from the run's embedder through stalebench's loopback endpoint (_run_embedder.py). Ops (backends/python/PROTOCOL.md):
reset, insert, search, list.
"""

import json

from store_adapters._run_embedder import embed_texts, endpoint_of

NAMESPACE = ("rebirth", "policies")
SEARCH_OPTIONS = frozenset()


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the library's refusal)."""

    origin = "driver"


def versions():
    import importlib.metadata

    import langgraph.store.memory  # noqa: F401  (ImportError here means: not installed)
    import langmem  # noqa: F401

    return {name: importlib.metadata.version(name) for name in ("langmem", "langgraph", "numpy")}


def describe(config):
    found = versions()
    return {
        "label": f"langmem {found['langmem']} (langgraph {found['langgraph']})",
        "versions": found,
        "store": "one LangGraph InMemoryStore(index={dims, embed}) per namespace, namespace ('rebirth', 'policies')",
        "config": {"writes": "store.put({content}) then store.delete (direct mode)", "read": "langmem create_search_memory_tool(namespace, store).invoke({query, limit})"},
    }


class MemoryStore:
    """Namespaces are separate InMemoryStores in this process: a process that dies takes them with it."""

    def __init__(self, directory, config):
        import langmem  # noqa: F401  (fails here, at open, when the package is missing)

        self.url, self.dimensions = endpoint_of(config)
        self.llm = config.get("llm")
        self.stores = {}

    def _store(self, namespace):
        from langgraph.store.memory import InMemoryStore

        if not isinstance(namespace, str) or not namespace:
            raise RequestError(f"namespace {namespace!r} is not a non-empty string")
        if namespace not in self.stores:
            self.stores[namespace] = InMemoryStore(index={"dims": self.dimensions, "embed": lambda texts: embed_texts(self.url, texts, self.dimensions)})
        return self.stores[namespace]

    def reset(self, namespace):
        self.stores.pop(namespace, None)
        return {}

    def _manage(self, store, text):
        """The paper's natural mode: the memory store manager on the run's extraction model, one user message."""
        import os

        from langchain_openai import ChatOpenAI
        from langmem import create_memory_store_manager

        if not self.llm:
            raise RequestError("an episode step needs config.llm: langmem's memory manager asks a language model")
        model = ChatOpenAI(model=self.llm["model"], base_url=self.llm.get("base_url"), api_key=os.environ.get("STALEBENCH_LLM_API_KEY") or "unused", temperature=0)
        manager = create_memory_store_manager(model, namespace=NAMESPACE, store=store, enable_deletes=True)
        manager.invoke({"messages": [{"role": "user", "content": text}]})

    def insert(self, namespace, steps, extractor=None):
        """Each step in order: {"put": {key, content}} (value {content}), {"delete": {key}} or {"episode": {content}}."""
        if extractor is not None:
            raise RequestError("langmem-py direct writes take no extractor")
        store = self._store(namespace)
        ids = []
        for step in steps:
            if "put" in step:
                store.put(NAMESPACE, step["put"]["key"], {"content": step["put"]["content"]})
                ids.append(step["put"]["key"])
            elif "delete" in step:
                store.delete(NAMESPACE, step["delete"]["key"])
            elif "episode" in step:
                self._manage(store, step["episode"]["content"])
            else:
                raise RequestError(f"unknown insert step {sorted(step)}")
        return {"ids": ids, "stored": len(self._items(store)), "history": {}}

    def _items(self, store):
        return store.search(NAMESPACE, limit=1_000_000)

    def search(self, namespace, query, k, options):
        from langmem import create_search_memory_tool

        unknown = sorted(set(options) - SEARCH_OPTIONS)
        if unknown:
            raise RequestError(f"search options {unknown} are not passed through; langmem has no read switch")
        tool = create_search_memory_tool(namespace=NAMESPACE, store=self._store(namespace))
        # The tool's answer is the JSON its caller reads: every SearchItem's dict(), best first.
        return {"records": json.loads(tool.invoke({"query": query, "limit": k})), "invalidated_at": {}}

    def list(self, namespace):
        return {"records": [item.dict() for item in self._items(self._store(namespace))]}

    def close(self):
        self.stores.clear()


def open_store(directory, config):
    return MemoryStore(directory, config)
