"""OpenAI Agents SDK SQLiteSession behind the stalebench store driver: one session per context, no model involved."""

import asyncio
import os

SESSIONS = {"A": "session-a", "B": "session-b"}
STORE_FILE = os.path.join("store", "sessions.db")


def describe(config):
    import importlib.metadata
    import sqlite3

    from agents import SQLiteSession  # noqa: F401  (ImportError here means: not installed)

    version = importlib.metadata.version("openai-agents")
    return {
        "label": f"OpenAI Agents SDK SQLiteSession (openai-agents {version})",
        "versions": {"openai-agents": version},
        "store": f"SQLite {sqlite3.sqlite_version}, one file: sessions.db (tables agent_sessions, agent_messages)",
        "config": {
            "integrity features": "none offered",
            "item format": "one user message item per record, JSON in agent_messages.message_data",
            "read path": "SQLiteSession.get_items(), what the SDK feeds the model on the next run",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [STORE_FILE],
        "owners": SESSIONS,
    }


class Store:
    def __init__(self, directory):
        from agents import SQLiteSession

        os.makedirs(os.path.join(directory, "store"), exist_ok=True)
        path = os.path.join(directory, STORE_FILE)
        self.sessions = {context: SQLiteSession(session, path) for context, session in SESSIONS.items()}

    def seed(self, context, records):
        session = self.sessions[context]
        for record in records:
            asyncio.run(session.add_items([{"role": "user", "content": record["text"]}]))
        return []

    def read(self, context):
        items = asyncio.run(self.sessions[context].get_items())
        return {"status": "served", "texts": [str(item.get("content", "")) for item in items]}

    def raw_paths(self):
        return {"store": STORE_FILE, "store_dir": "store"}

    def close(self):
        for session in self.sessions.values():
            session.close()


def open_store(directory, config):
    return Store(directory)
