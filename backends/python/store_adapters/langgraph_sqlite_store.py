"""LangGraph's Python SqliteSaver behind the stalebench store driver: checkpoints as records, one thread per context."""

import os
import sqlite3

THREADS = {"A": "thread-a", "B": "thread-b"}
STORE_FILE = os.path.join("store", "checkpoints.db")


def describe(config):
    import importlib.metadata

    from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: F401  (ImportError here means: not installed)

    version = importlib.metadata.version("langgraph-checkpoint-sqlite")
    return {
        "label": f"LangGraph Python SqliteSaver (langgraph-checkpoint-sqlite {version})",
        "versions": {"langgraph-checkpoint-sqlite": version, "langgraph-checkpoint": importlib.metadata.version("langgraph-checkpoint")},
        "store": f"SQLite {sqlite3.sqlite_version}, one file: checkpoints.db",
        "config": {"integrity features": "none offered", "serializer": "JsonPlusSerializer (default, msgpack)", "read path": "get_tuple({thread_id}) and list({thread_id})"},
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [STORE_FILE],
        "owners": THREADS,
    }


class Store:
    """One SqliteSaver file; `serde` (a serializer) and `wrap` (saver -> saver) let other adapters reuse seed/read."""

    def __init__(self, directory, config, serde=None, wrap=None):
        from langgraph.checkpoint.sqlite import SqliteSaver

        os.makedirs(os.path.join(directory, "store"), exist_ok=True)
        self.connection = sqlite3.connect(os.path.join(directory, STORE_FILE), check_same_thread=False)
        self.inner = SqliteSaver(self.connection, serde=serde)
        self.inner.setup()
        self.saver = wrap(self.inner) if wrap else self.inner

    def seed(self, context, records):
        from langgraph.checkpoint.base import empty_checkpoint
        from langgraph.checkpoint.base.id import uuid6

        config = {"configurable": {"thread_id": THREADS[context], "checkpoint_ns": ""}}
        latest = self.saver.get_tuple(config)
        parent = latest.config["configurable"]["checkpoint_id"] if latest else None
        step = len(list(self.saver.list(config)))
        ids = []
        for record in records:
            checkpoint = {**empty_checkpoint(), "id": str(uuid6(clock_seq=step)), "channel_values": {"memory": record["text"]}, "channel_versions": {"memory": step + 1}}
            put_config = {"configurable": {"thread_id": THREADS[context], "checkpoint_ns": "", **({"checkpoint_id": parent} if parent else {})}}
            self.saver.put(put_config, checkpoint, {"source": "loop", "step": step, "parents": {}}, {"memory": step + 1})
            parent = checkpoint["id"]
            ids.append(parent)
            step += 1
        return ids

    def read(self, context):
        config = {"configurable": {"thread_id": THREADS[context]}}
        latest = self.saver.get_tuple(config)
        texts = [str(item.checkpoint["channel_values"].get("memory", "")) for item in self.saver.list(config)]
        if latest is not None and str(latest.checkpoint["channel_values"].get("memory", "")) not in texts:
            texts.append(str(latest.checkpoint["channel_values"].get("memory", "")))
        return {"status": "served", "texts": texts}

    def raw_paths(self):
        return {"store": STORE_FILE, "store_dir": "store"}

    def close(self):
        self.connection.close()


def open_store(directory, config):
    return Store(directory, config)
