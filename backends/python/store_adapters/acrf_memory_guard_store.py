"""acrf-memory-guard (PyPI) behind the stalebench store driver: a JSON store of HMAC-signed entries, checked on read.

The store is the layout the package's CLI verifies (verify-store): one JSON object, keys are entry ids, values are
signed entries. Two users share one store and one secret; keys are ctx-A::nn and ctx-B::nn, and the owner is
carried inside the signed entry as the README's user_id. Entries are written with sign_entry() and read with
read_safe(), which raises MemoryIntegrityError on a mismatch or a missing signature (detection point: read). The
secret lives in <cell>/keys/acrf.secret, outside store/ (the README: never beside the memory data).
"""

import json
import os
import secrets

USERS = {"A": "ctx-A", "B": "ctx-B"}
STORE_FILE = os.path.join("store", "memory_store.json")


def describe(config):
    import importlib.metadata

    import acrf_memory_guard  # noqa: F401  (ImportError here means: not installed)

    version = importlib.metadata.version("acrf-memory-guard")
    return {
        "label": f"acrf-memory-guard {version}, per-entry HMAC over a JSON store, read path",
        "versions": {"acrf-memory-guard": version},
        "store": "one JSON object file keyed by entry id (store/memory_store.json), the layout of verify-store",
        "config": {
            "signing": "sign_entry(): HMAC-SHA256 over each entry's canonical JSON, secret in <cell>/keys outside the store",
            "read path": "read_safe() on each of the context's entries (ctx-A::nn), in key order",
            "audit": "none (read_safe() is the check)",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [STORE_FILE],
        "owners": USERS,
    }


class Store:
    def __init__(self, directory, config):
        self.path = os.path.join(directory, STORE_FILE)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        secret_file = os.path.join(directory, "keys", "acrf.secret")
        if not os.path.exists(secret_file):
            os.makedirs(os.path.dirname(secret_file), exist_ok=True)
            with open(secret_file, "w", encoding="utf-8") as handle:
                handle.write(secrets.token_hex(32))
        with open(secret_file, encoding="utf-8") as handle:
            self.secret = handle.read().strip()

    def _load(self):
        if not os.path.exists(self.path):
            return {}
        with open(self.path, encoding="utf-8") as handle:
            return json.load(handle)

    def seed(self, context, records):
        from acrf_memory_guard import sign_entry

        store = self._load()
        prefix = f"{USERS[context]}::"
        ids = []
        for record in records:
            index = sum(1 for key in store if key.startswith(prefix))
            key = f"{prefix}{index:02d}"
            entry = {"user_id": USERS[context], "text": record["text"], "created_at": f"2026-12-01T10:{index:02d}:00Z"}
            labels = record.get("labels") or {}
            if "source" in labels:
                entry["source"] = labels["source"]
            store[key] = sign_entry(entry, self.secret)
            ids.append(key)
        with open(self.path, "w", encoding="utf-8") as handle:
            json.dump(store, handle, indent=2)
        return ids

    def read(self, context):
        from acrf_memory_guard import read_safe

        store = self._load()
        prefix = f"{USERS[context]}::"
        return {"status": "served", "texts": [read_safe(store[key], self.secret)["text"] for key in sorted(store) if key.startswith(prefix)]}

    def raw_paths(self):
        return {"store": STORE_FILE, "store_dir": "store"}

    def close(self):
        pass


def open_store(directory, config):
    return Store(directory, config)
