"""The Python mem0ai Memory on qdrant-client's local on-disk store behind the stalebench store driver (at-rest target).

Offline: MEM0_TELEMETRY=false and MEM0_DIR inside the cell are set before mem0 is imported; the embedder config names
the openai provider with a dummy key and a dead loopback URL (EmbedderConfig accepts only fixed provider names), and
`memory.embedding_model` is then replaced by a deterministic local embedder, so no call is ever made. Memories are
added with infer=False (verbatim, no model). One mem0 user id per context.
"""

import hashlib
import os
import re
from datetime import datetime, timedelta, timezone

USERS = {"A": "ctx-a", "B": "ctx-b"}
COLLECTION = "mem0"
QDRANT_DIR = os.path.join("store", "qdrant")
POINTS_FILE = os.path.join(QDRANT_DIR, "collection", COLLECTION, "storage.sqlite")
HISTORY_FILE = os.path.join("store", "history.db")
DIMENSIONS = 64
READ_LIMIT = 1000
DEAD_URL = "http://127.0.0.1:9/v1"


class HarnessFault(RuntimeError):
    """Ours, never mem0's refusal (the driver reports it with origin "driver")."""

    origin = "driver"


def _offline_environment(directory):
    """Must run before mem0 is first imported: its telemetry flag and config directory are read at import time."""
    os.environ["MEM0_TELEMETRY"] = "false"
    os.environ["MEM0_DIR"] = os.path.join(directory, ".mem0")


def hashed_embedding(text):
    """A deterministic bag-of-words hashing vector (unit length): stable across processes, no model, no download."""
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", str(text).lower()):
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        vector[int.from_bytes(digest[:4], "big") % DIMENSIONS] += 1.0 if digest[4] & 1 else -1.0
    norm = sum(value * value for value in vector) ** 0.5
    return [value / norm for value in vector] if norm else [1.0 / DIMENSIONS**0.5] * DIMENSIONS


def hashed_embedder(embedding_base):
    """An instance of mem0's EmbeddingBase returning `hashed_embedding` (built after mem0 is imported)."""

    class HashedEmbedding(embedding_base):
        def embed(self, text, memory_action=None):
            return hashed_embedding(text)

    return HashedEmbedding()


def versions():
    import importlib.metadata

    return {"mem0ai": importlib.metadata.version("mem0ai"), "qdrant-client": importlib.metadata.version("qdrant-client")}


def open_memory_with(directory, qdrant_path, history_path, dimensions, make_embedder):
    """mem0's Memory on a local on-disk Qdrant collection and a history SQLite file; `make_embedder(EmbeddingBase)`
    replaces the configured openai one (dummy key, dead loopback URL) before any call. MEM0_DIR is
    `<directory>/.mem0`. Nothing of mem0 may be imported before this runs (its telemetry switch is read at import)."""
    _offline_environment(directory)
    from mem0 import Memory
    from mem0.embeddings.base import EmbeddingBase
    from mem0.memory import telemetry

    if telemetry.MEM0_TELEMETRY:
        raise HarnessFault("mem0 was imported before MEM0_TELEMETRY=false was set: its telemetry is on")

    memory = Memory.from_config(
        {
            "vector_store": {"provider": "qdrant", "config": {"collection_name": COLLECTION, "path": qdrant_path, "embedding_model_dims": dimensions, "on_disk": True}},
            "embedder": {"provider": "openai", "config": {"api_key": "offline-no-key", "openai_base_url": DEAD_URL, "embedding_dims": dimensions}},
            "llm": {"provider": "openai", "config": {"api_key": "offline-no-key", "openai_base_url": DEAD_URL}},
            "history_db_path": history_path,
        }
    )
    memory.embedding_model = make_embedder(EmbeddingBase)
    return memory


def close_memory(memory):
    memory.close()
    memory.vector_store.client.close()


def describe(config):
    found = versions()  # PackageNotFoundError is an ImportError: not installed
    import sqlite3

    return {
        "label": f"mem0 OSS Memory, Python (mem0ai {found['mem0ai']}), local Qdrant store (qdrant-client {found['qdrant-client']})",
        "versions": found,
        "store": f"qdrant-client {found['qdrant-client']} local on-disk mode: {POINTS_FILE} (SQLite {sqlite3.sqlite_version}, one pickled PointStruct per memory) and {HISTORY_FILE}",
        "config": {
            "integrity features": "none offered by mem0 OSS",
            "ingestion": "Memory.add(text, user_id, infer=False, metadata={source}) — verbatim, no LLM",
            "read path": "get_all(filters={'user_id': ...}) with mem0's default show_expired=False",
            "embedder": f"deterministic local hashing embedder ({DIMENSIONS} dimensions) in place of the openai one; the at-rest method does not rank, so ranks are not measured",
            "keyword scoring": "off: fastembed (BM25) and spaCy are not installed; mem0 continues semantic-only",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": ["expiration_date"],
        "raw_files": [POINTS_FILE, HISTORY_FILE],
        "owners": USERS,
    }


def past_expiration_date():
    """A YYYY-MM-DD date before today in UTC, which mem0 treats as expired (its revocation primitive)."""
    return (datetime.now(timezone.utc).date() - timedelta(days=1)).isoformat()


class Store:
    def __init__(self, directory, config):
        os.makedirs(os.path.join(directory, QDRANT_DIR), exist_ok=True)
        self.memory = open_memory_with(directory, os.path.join(directory, QDRANT_DIR), os.path.join(directory, HISTORY_FILE), DIMENSIONS, hashed_embedder)

    def seed(self, context, records):
        ids = []
        for record in records:
            expiry = {"expiration_date": past_expiration_date()} if record.get("revoked") else {}
            added = self.memory.add(record["text"], user_id=USERS[context], infer=False, metadata=dict(record.get("labels") or {}), **expiry)
            ids.extend(item["id"] for item in added["results"])
        return ids

    def read(self, context):
        found = self.memory.get_all(filters={"user_id": USERS[context]}, top_k=READ_LIMIT)
        return {"status": "served", "texts": [item["memory"] for item in found["results"]]}

    def raw_paths(self):
        return {"store": POINTS_FILE, "store_dir": "store"}

    def close(self):
        close_memory(self.memory)


def open_store(directory, config):
    return Store(directory, config)
