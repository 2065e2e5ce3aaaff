"""LangGraph's PostgresSaver behind the stalebench store driver: the SqliteSaver adapter's records on a PostgreSQL database."""

from store_adapters import langgraph_sqlite_store

THREADS = langgraph_sqlite_store.THREADS


def describe(config):
    import importlib.metadata

    from langgraph.checkpoint.postgres import PostgresSaver  # noqa: F401  (ImportError here means: not installed)

    version = importlib.metadata.version("langgraph-checkpoint-postgres")
    return {
        "label": f"LangGraph PostgresSaver (langgraph-checkpoint-postgres {version})",
        "versions": {
            "langgraph-checkpoint-postgres": version,
            "langgraph-checkpoint": importlib.metadata.version("langgraph-checkpoint"),
            "psycopg": importlib.metadata.version("psycopg"),
        },
        # The server and its version are the target's to name: it starts or picks the server.
        "store": "PostgreSQL, one database per store: tables checkpoints (JSONB), checkpoint_blobs, checkpoint_writes",
        "config": {
            "integrity features": "none offered",
            "serializer": "JsonPlusSerializer (default); str channel values inline in the checkpoint JSONB",
            "read path": "get_tuple({thread_id}) and list({thread_id})",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [],
        "owners": THREADS,
    }


class Store(langgraph_sqlite_store.Store):
    """Seeds and reads exactly as the SqliteSaver adapter does; only the saver and its connection differ."""

    def __init__(self, directory, config):
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        # The connection settings LangGraph's documentation gives for PostgresSaver.
        self.connection = psycopg.connect(config["uri"], autocommit=True, prepare_threshold=0, row_factory=dict_row)
        self.saver = PostgresSaver(self.connection)
        self.saver.setup()

    def raw_paths(self):
        return {"store": "", "store_dir": ""}


def open_store(directory, config):
    return Store(directory, config)
