"""Atelya Attest (PyPI atelya-attest) behind the stalebench store driver: a keyed hash chain over an amem op-log.

One chain file per context (store/chain-a.jsonl, store/chain-b.jsonl), built with build_chain() and an HMAC key,
as the README's quick start attests an op-log. The read path replays the chain's payloads with the package's own
amem_governance.replay(); the audit is verify_chain(). config {"anchored": true} also checkpoints each head into a
ledger with the package's own anchor command (cmd_anchor: make_entry() after its own checks), and the audit adds
the package's check command (cmd_check: verify_chain, verify_ledger, monotonic, consistency against every
checkpoint). The chain key, the ledger key and the ledger live under <cell>/keys and <cell>/anchor, outside store/:
the attacker holds the store's files only.
"""

import contextlib
import io
import json
import os
import secrets

CHAINS = {"A": "chain-a", "B": "chain-b"}
STORE_DIR = "store"


def _chain_file(context):
    return os.path.join(STORE_DIR, f"{CHAINS[context]}.jsonl")


def describe(config):
    import importlib.metadata

    import amem_attest  # noqa: F401  (ImportError here means: not installed)

    anchored = bool(config.get("anchored"))
    version = importlib.metadata.version("atelya-attest")
    return {
        "label": f"Atelya Attest {version}, keyed hash chain{' plus anchored head' if anchored else ''}",
        "versions": {"atelya-attest": version},
        "store": "JSON-lines chain files, one per context (store/chain-a.jsonl, store/chain-b.jsonl)",
        "config": {
            "chain": "HMAC-SHA256 (build_chain with a key kept in <cell>/keys, outside the store)",
            "anchor": "on: each head checkpointed with the anchor command (make_entry) into <cell>/anchor/ledger.jsonl, its own key, outside the store" if anchored else "off",
            "read path": "amem_governance.replay() over the chain's payloads (the chain file itself, replayed)",
            "audit": "verify_chain() then the anchor check command (verify_ledger, monotonic, consistency)" if anchored else "verify_chain()",
        },
        "detection": "audit",
        "audit": True,
        "revocation_fields": [],
        "raw_files": [_chain_file("A"), _chain_file("B")],
        "owners": CHAINS,
    }


def _key(directory, name):
    """A random key kept in <cell>/keys/<name>, created on first use."""
    path = os.path.join(directory, "keys", name)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_hex(32))
    with open(path, encoding="utf-8") as handle:
        return handle.read().strip().encode("utf-8")


class Store:
    def __init__(self, directory, config):
        self.directory = directory
        self.anchored = bool(config.get("anchored"))
        os.makedirs(os.path.join(directory, STORE_DIR), exist_ok=True)
        self.chain_key = _key(directory, "attest.key")
        self.anchor_key = _key(directory, "anchor.key") if self.anchored else None
        self.ledger = os.path.join(directory, "anchor", "ledger.jsonl")

    def _path(self, context):
        return os.path.join(self.directory, _chain_file(context))

    def _chain(self, context):
        import amem_attest

        path = self._path(context)
        return amem_attest.read_jsonl(path) if os.path.exists(path) else []

    def seed(self, context, records):
        import amem_attest

        events = [entry["payload"] for entry in self._chain(context)]
        ids = []
        for record in records:
            index = len(events)
            event = {"op": "add", "id": f"{CHAINS[context]}-m{index}", "text": record["text"], "created_at": 1_780_000_000.0 + index}
            labels = record.get("labels") or {}
            if "source" in labels:
                event["source"] = labels["source"]
            events.append(event)
            ids.append(event["id"])
        chain = amem_attest.build_chain(events, self.chain_key)
        with open(self._path(context), "w", encoding="utf-8") as handle:
            for entry in chain:
                handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        if self.anchored:
            import amem_anchor

            os.makedirs(os.path.dirname(self.ledger), exist_ok=True)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                code = amem_anchor.cmd_anchor(self._path(context), self.ledger, CHAINS[context], self.anchor_key, self.chain_key, amem_anchor._now_rfc3339())
            if code != 0:
                raise RuntimeError(f"the anchor command refused the head: {printed.getvalue().strip()}")
        return ids

    def read(self, context):
        import amem_governance

        records, order = amem_governance.replay([entry.get("payload") or {} for entry in self._chain(context)])
        return {"status": "served", "texts": [records[rid]["text"] for rid in order if records[rid]["status"] == "active"]}

    def audit(self, context):
        import amem_attest

        ok, bad, reason = amem_attest.verify_chain(self._chain(context), self.chain_key)
        if not ok:
            return {"ok": False, "reason": f"verify_chain: TAMPER DETECTED at seq={bad}: {reason}"}
        if not self.anchored:
            return {"ok": True}
        import amem_anchor

        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = amem_anchor.cmd_check(self._path(context), self.ledger, CHAINS[context], self.anchor_key, self.chain_key, True)
        return {"ok": True} if code == 0 else {"ok": False, "reason": f"anchor check: {printed.getvalue().strip()}"}

    def raw_paths(self):
        return {"store": _chain_file("A"), "store_dir": STORE_DIR}

    def close(self):
        pass


def open_store(directory, config):
    return Store(directory, config)
