"""langgraph-ledger's TracingCheckpointSaver over SqliteSaver behind the stalebench store driver; verify_thread() audits."""

import os
import sqlite3

from store_adapters.langgraph_sqlite_store import STORE_FILE, THREADS, Store

# The per-thread JSONL ledger lives beside store/, never inside it: the raw edits and T9's copy touch store/ only.
LEDGER_DIR = "ledger"


def describe(config):
    import importlib.metadata

    from langgraph_ledger import TracingCheckpointSaver, verify_thread  # noqa: F401  (ImportError: not installed)

    versions = {name: importlib.metadata.version(name) for name in ("langgraph-ledger", "langgraph-checkpoint-sqlite", "langgraph-checkpoint")}
    return {
        "label": f"langgraph-ledger {versions['langgraph-ledger']} over SqliteSaver (langgraph-checkpoint-sqlite {versions['langgraph-checkpoint-sqlite']}), hash-chained ledger, verify_thread() audit",
        "versions": versions,
        "store": f"SQLite {sqlite3.sqlite_version}, checkpoints.db (store/) plus one JSONL ledger per thread in ledger/, outside the store directory",
        "config": {
            "integrity features": "on: TracingCheckpointSaver logs a SHA-256 of every checkpoint into a hash-chained ledger",
            "ledger key": "none (keyless chain, the default)",
            "ledger location": "ledger/<thread>.jsonl beside store/; the edits and T9's copy never touch it",
            "read path": "get_tuple({thread_id}) and list({thread_id}), delegated to the inner SqliteSaver",
            "audit": "verify_thread(saver, ledger/<thread>.jsonl)",
        },
        "detection": "audit",
        "audit": True,
        "revocation_fields": [],
        "raw_files": [STORE_FILE],
        "owners": THREADS,
    }


class LedgerStore(Store):
    def __init__(self, directory, config):
        from langgraph_ledger import TracingCheckpointSaver

        self.ledger_dir = os.path.join(directory, LEDGER_DIR)
        super().__init__(directory, config, wrap=lambda inner: TracingCheckpointSaver(inner, trace_root=self.ledger_dir))

    def audit(self, context):
        from langgraph_ledger import verify_thread

        report = verify_thread(self.inner, os.path.join(self.ledger_dir, f"{THREADS[context]}.jsonl"))
        if report.get("ok"):
            return {"ok": True}
        return {"ok": False, "reason": "verify_thread: " + "; ".join(str(error.get("error")) for error in report.get("errors", []))}


def open_store(directory, config):
    return LedgerStore(directory, config)
