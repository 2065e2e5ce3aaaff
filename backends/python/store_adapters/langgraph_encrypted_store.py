"""LangGraph's SqliteSaver with EncryptedSerializer (AES through pycryptodome) behind the stalebench store driver."""

import sqlite3

from store_adapters.langgraph_sqlite_store import STORE_FILE, THREADS, Store

# from_pycryptodome_aes() reads its key from this variable; the harness sets it in the store process only.
KEY_VARIABLE = "LANGGRAPH_AES_KEY"


def describe(config):
    import importlib.metadata

    from Crypto.Cipher import AES  # noqa: F401  (ImportError here means: pycryptodome not installed)
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer  # noqa: F401

    versions = {name: importlib.metadata.version(name) for name in ("langgraph-checkpoint-sqlite", "langgraph-checkpoint", "pycryptodome")}
    return {
        "label": f"LangGraph SqliteSaver with EncryptedSerializer (AES-EAX, langgraph-checkpoint {versions['langgraph-checkpoint']}, langgraph-checkpoint-sqlite {versions['langgraph-checkpoint-sqlite']})",
        "versions": versions,
        "store": f"SQLite {sqlite3.sqlite_version}, one file: checkpoints.db; checkpoint blobs encrypted, metadata column plain JSON",
        "config": {
            "integrity features": "at-rest encryption on: EncryptedSerializer.from_pycryptodome_aes() (AES, mode EAX by default: nonce, tag, ciphertext)",
            "key": f"from {KEY_VARIABLE} in the store process's environment only (never in the store's files)",
            "read path": "get_tuple({thread_id}) and list({thread_id})",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [STORE_FILE],
        "owners": THREADS,
    }


def open_store(directory, config):
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

    return Store(directory, config, serde=EncryptedSerializer.from_pycryptodome_aes())
