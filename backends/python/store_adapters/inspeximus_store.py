"""inspeximus behind the stalebench store driver: remember() writes, recall() reads, verify_writes() audits.

config: {"receipts": bool, "signed": bool, "attacker": str}. receipts off is the library default. With receipts on,
every write joins the hash chain in the "<store>.receipts.json" sidecar (inside the store directory) and the chain's
head is kept in the user's config home, which the harness places outside the store directory (HOME /
XDG_CONFIG_HOME of this process). signed: each receipt is Ed25519-signed with a key minted by inspeximus'
new_receipt_keypair() on the first open and kept in "<cell>/key/", off the store and off the config home; the audit
pins its public half (verify_writes(expected_pubkey=...)). "attacker" names what the harness's raw edits hold (they
are made in TypeScript, never here); it is only described.
"""

import json
import os
import sqlite3

USERS = {"A": "ctx-a", "B": "ctx-b"}
QUERY = "approved transfer limit vault phrase"
STORE_FILE = os.path.join("store", "memory.db")
KEY_FILE = os.path.join("key", "receipt-key.json")


def _mode(config):
    """(receipts, signed) from the config; signed without receipts is a bad request."""
    receipts = bool(config.get("receipts"))
    signed = bool(config.get("signed"))
    if signed and not receipts:
        error = ValueError("config signed=true needs receipts=true")
        error.origin = "driver"
        raise error
    return receipts, signed


def describe(config):
    import importlib.metadata

    import inspeximus  # ImportError here means: not installed

    receipts, signed = _mode(config)
    version = importlib.metadata.version("inspeximus")
    attacker = str(config.get("attacker") or "the store directory")
    if not receipts:
        label = f"inspeximus {version}, receipts off (default)"
        receipts_text = "off (library default)"
        audit = "none (verify_writes() refuses to vouch with receipts off)"
    elif not signed:
        label = (f"inspeximus {version}, receipts on WITHOUT a key (unsigned hash chain); "
                 "the edits leave the receipts sidecar untouched")
        receipts_text = ("on, unsigned: hash-chained write receipts with no key (anyone who rewrites the sidecar can "
                         "rewrite the chain), head kept in the config home outside the store directory")
        audit = "verify_writes()"
    else:
        label = f"inspeximus {version}, receipts on with an Ed25519 key, attacker holds {attacker}"
        receipts_text = ("on, signed: hash-chained write receipts, each Ed25519-signed with a key minted by "
                         "new_receipt_keypair(); head kept in the config home outside the store directory")
        audit = "verify_writes(expected_pubkey=<the key's public half, read from off the store>)"
    described = {
        "receipts": receipts_text,
        "read path": "recall(query, k=50, user_id)",
        "audit": audit,
    }
    if receipts:
        described["attacker holds"] = (
            attacker if signed else "the SQLite file only: the edits never touch the receipts sidecar or the head")
    if signed:
        described["key"] = f"<cell>/{KEY_FILE}: outside the store directory and the config home"
    return {
        "label": label,
        "versions": {"inspeximus": version, "cryptography": importlib.metadata.version("cryptography")},
        "store": f"SQLite {sqlite3.sqlite_version} row store (records table){' + receipts sidecar' if receipts else ''}",
        "config": described,
        "detection": "audit" if receipts else "read",
        "audit": receipts,
        # retire() is the revocation primitive the T8:unrevoke seeding uses; inspeximus 3.0.0 has none.
        "revocation_fields": ["status", "superseded_by_policy", "retired_reason"] if hasattr(inspeximus.Inspeximus, "retire") else [],
        "raw_files": [STORE_FILE],
        "owners": USERS,
    }


def _receipt_key(directory):
    """(private hex, public hex) of this cell's receipt key: minted by inspeximus on the first open, then reread."""
    import inspeximus

    path = os.path.join(directory, KEY_FILE)
    if not os.path.exists(path):
        private, public = inspeximus.new_receipt_keypair()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as out:
            json.dump({"private": private, "public": public}, out)
    with open(path, encoding="utf-8") as source:
        key = json.load(source)
    return key["private"], key["public"]


class Store:
    def __init__(self, directory, config):
        from inspeximus import Inspeximus

        self.directory = directory
        self.receipts, signed = _mode(config)
        private, self.public = _receipt_key(directory) if signed else (None, None)
        self.memory = Inspeximus(os.path.join(directory, STORE_FILE), receipts=self.receipts, receipt_key=private)

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
        ok, problems = self.memory.verify_writes(expected_pubkey=self.public)
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
