"""inspeximus behind the stalebench store driver: remember() writes, recall() reads, verify_writes() audits.

config: {"receipts": bool}. receipts off is the library default; with receipts on, every write joins the hash
chain in the "<store>.receipts.json" sidecar and the chain's head is kept in the user's config home, which the
harness places outside the store directory (HOME / XDG_CONFIG_HOME of this process).
"""

import os
import sqlite3

USERS = {"A": "ctx-a", "B": "ctx-b"}
QUERY = "approved transfer limit vault phrase"
STORE_FILE = os.path.join("store", "memory.db")


def describe(config):
    import importlib.metadata

    import inspeximus  # noqa: F401  (ImportError here means: not installed)

    receipts = bool(config.get("receipts"))
    return {
        "label": f"inspeximus {importlib.metadata.version('inspeximus')}, receipts {'on' if receipts else 'off (default)'}",
        "versions": {"inspeximus": importlib.metadata.version("inspeximus"), "cryptography": importlib.metadata.version("cryptography")},
        "store": f"SQLite {sqlite3.sqlite_version} row store (records table){' + receipts sidecar' if receipts else ''}",
        "config": {
            "receipts": "on: hash-chained write receipts, head kept in the config home outside the store directory" if receipts else "off (library default)",
            "read path": "recall(query, k=50, user_id)",
            "audit": "verify_writes()" if receipts else "none (verify_writes() refuses to vouch with receipts off)",
        },
        "detection": "audit" if receipts else "read",
        "audit": receipts,
        "revocation_fields": ["status", "superseded_by_policy", "retired_reason"],
        "raw_files": [STORE_FILE],
        "owners": USERS,
    }


class Store:
    def __init__(self, directory, config):
        from inspeximus import Inspeximus

        self.directory = directory
        self.receipts = bool(config.get("receipts"))
        self.memory = Inspeximus(os.path.join(directory, STORE_FILE), receipts=self.receipts)

    def seed(self, context, records):
        ids = []
        for index, record in enumerate(records):
            key = f"{USERS[context]}-record-{index}" if record.get("revoked") else None
            labels = record.get("labels") or {}
            source = {"doc": labels["source"]} if "source" in labels else None  # the library's own provenance field
            ids.append(self.memory.remember(record["text"], source=source, user_id=USERS[context], key=key))
            if key is not None:
                self.memory.retire(key, reason="revoked by the integrity harness's seeding")
        self.memory.flush()
        return ids

    def read(self, context):
        found = self.memory.recall(QUERY, k=50, user_id=USERS[context])
        return {"status": "served", "texts": [item["text"] for item in found]}

    def audit(self, context):
        if not self.receipts:
            raise RuntimeError("receipts are off: verify_writes() has nothing to verify")
        ok, problems = self.memory.verify_writes()
        return {"ok": bool(ok)} if ok else {"ok": False, "reason": "; ".join(problems)}

    def raw_paths(self):
        return {"store": STORE_FILE, "store_dir": "store"}

    def close(self):
        self.memory.flush()
        close = getattr(self.memory, "_release", None)
        if callable(close):
            close()


def open_store(directory, config):
    return Store(directory, config)
