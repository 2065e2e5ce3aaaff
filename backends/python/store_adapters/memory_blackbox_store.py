"""memory-blackbox's memory.md watcher behind the stalebench store driver (agmi's memory-blackbox rows).

The agent's memory is two plain files in store/: MEMORY.md (context A) and AGENTS.md (context B, the second watched
file agmi uses), one memory per line, `- <text> <!-- id=<slot> <label>=<value> -->`. The agent writes a line and then
MemoryMdAdapter.scan() records that write in the tool's ledger (a signed provenance record). The ledger and the
signing key live in the tool's profile, ~/.memory-blackbox (the harness points HOME at a directory beside the store):
the tool's own trusted state, which the raw edits never touch. Each open is a process start: MemoryBlackbox.open()
on the profile, then baseline(), as an agent restarting under the watcher does. The read path is the file itself;
the audit is scan(): a write it records for the context's file is a change the agent did not make.
"""

import importlib.metadata
import os
import re
from pathlib import Path

FILES = {"A": "MEMORY.md", "B": "AGENTS.md"}
STORE_DIR = "store"
LINE = re.compile(r"^- (?P<text>.*) <!-- id=(?P<slot>\S+)(?P<labels>(?: [^=\s]+=\S*)*) -->$")


def describe(config):
    from memory_blackbox.adapters.memory_md import MemoryMdAdapter  # noqa: F401  (ImportError: not installed)

    version = importlib.metadata.version("memory-blackbox")
    return {
        "label": f"memory-blackbox memory.md watcher (memory-blackbox {version}), scan audit",
        "versions": {
            "memory-blackbox": version,
            "blake3": importlib.metadata.version("blake3"),
            "cryptography": importlib.metadata.version("cryptography"),
        },
        "store": "agent memory files store/MEMORY.md (A) and store/AGENTS.md (B), one memory per line with its label in a trailing HTML comment; the tool's ledger (SQLite ledger.db) and signing.key in its profile ~/.memory-blackbox, beside the store and never edited",
        "config": {
            "watcher": "MemoryMdAdapter(root=store/, default files), baseline() on every start, scan() after every agent write",
            "ledger": "BLAKE3 hash chain of Ed25519-signed records, the trusted state (untouched by every edit)",
            "anchoring": "off (default)",
            "read path": "the memory file itself",
            "audit": "scan(): a write recorded for the context's file is a change the agent did not make",
        },
        "detection": "audit",
        "audit": True,
        "revocation_fields": [],
        "raw_files": [os.path.join(STORE_DIR, FILES["A"]), os.path.join(STORE_DIR, FILES["B"])],
        "owners": FILES,
    }


def _profile():
    """The tool's key and ledger, created the way `memory-blackbox init` does on first use."""
    from memory_blackbox.config import resolve_config
    from memory_blackbox.crypto import keys
    from memory_blackbox.ledger.store import LedgerStore

    config = resolve_config(Path.home() / ".memory-blackbox")
    if not config.key_path.exists():
        config.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        keypair = keys.generate()
        keys.save(keypair, config.key_path)
        LedgerStore(config.ledger_path, keypair).close()
    return config.ledger_path, keys.load(config.key_path)


def _lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


class Store:
    def __init__(self, directory, config):
        from memory_blackbox.adapters.memory_md import MemoryMdAdapter
        from memory_blackbox.capture.engine import MemoryBlackbox

        self.root = os.path.join(directory, STORE_DIR)
        os.makedirs(self.root, exist_ok=True)
        ledger, signer = _profile()
        self.blackbox = MemoryBlackbox.open(ledger, signer)
        self.watcher = MemoryMdAdapter(self.blackbox, self.root)
        recorded = self.watcher.baseline()  # None on 0.1.0; the first-seen writes on 0.1.1
        self.opened = {"baseline_writes": len(recorded or [])}

    def _path(self, context):
        return os.path.join(self.root, FILES[context])

    def seed(self, context, records):
        path = self._path(context)
        start = len(_lines(path))
        ids = []
        with open(path, "a", encoding="utf-8") as handle:
            for offset, record in enumerate(records):
                slot = f"{context}-{start + offset:03d}"
                labels = "".join(f" {key}={value}" for key, value in sorted(record.get("labels", {}).items()))
                handle.write(f"- {record['text']} <!-- id={slot}{labels} -->\n")
                ids.append(slot)
        # The agent's own write, captured as it happens: the watcher records it as a signed write in the ledger.
        self.watcher.scan()
        return ids

    def read(self, context):
        texts = []
        for line in _lines(self._path(context)):
            match = LINE.match(line)
            texts.append(match.group("text") if match else line)
        return {"status": "served", "texts": texts}

    def audit(self, context):
        path = self._path(context)
        written = [record for record in self.watcher.scan() if record.memory_id == path]
        if not written:
            return {"ok": True}
        record = written[-1]
        return {
            "ok": False,
            "reason": f"scan() recorded a write the agent did not make: {FILES[context]} changed on disk (ledger write {record.record_id}, {record.content_hash[:19]}...)",
        }

    def raw_paths(self):
        return {"store": os.path.join(STORE_DIR, FILES["A"]), "store_dir": STORE_DIR}

    def close(self):
        self.blackbox.ledger.close()


def open_store(directory, config):
    return Store(directory, config)
