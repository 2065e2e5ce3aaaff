"""LangGraph's RedisSaver behind the stalebench store driver: checkpoints as records, one thread per context.

The Redis server is the harness's (config `redis_url`); each cell has its own key prefix (config `key_prefix`),
passed to the saver as `checkpoint_prefix` / `checkpoint_write_prefix`, so its keys and search indexes are its own.
"""

from store_adapters import langgraph_sqlite_store

THREADS = langgraph_sqlite_store.THREADS


def prefixes(key_prefix):
    """The saver's two prefixes for a cell; every key it writes for the cell starts with `<key_prefix>_checkpoint`."""
    return {"checkpoint_prefix": f"{key_prefix}_checkpoint", "checkpoint_write_prefix": f"{key_prefix}_checkpoint_write"}


def server_description(redis_url):
    """`Redis 8.2.3 with search 2.10.5, ReJSON 2.8.3` as the server reports itself (INFO and MODULE LIST)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        version = client.info("server")["redis_version"]
        modules = []
        for module in client.execute_command("MODULE", "LIST"):
            fields = {key.decode(): value for key, value in module.items()}
            ver = int(fields["ver"])
            modules.append(f"{fields['name'].decode()} {ver // 10000}.{ver // 100 % 100}.{ver % 100}")
        return f"Redis {version} with {', '.join(sorted(modules))}"
    finally:
        client.close()


def describe(config):
    import importlib.metadata

    from langgraph.checkpoint.redis import RedisSaver  # noqa: F401  (ImportError here means: not installed)

    version = importlib.metadata.version("langgraph-checkpoint-redis")
    versions = {
        "langgraph-checkpoint-redis": version,
        "langgraph-checkpoint": importlib.metadata.version("langgraph-checkpoint"),
        "redis (redis-py)": importlib.metadata.version("redis"),
        "redisvl": importlib.metadata.version("redisvl"),
    }
    url = config.get("redis_url")
    server = server_description(url) if url else "Redis server not started"
    if url:
        versions["redis-server"] = server.split(" ")[1]
    return {
        "label": f"LangGraph RedisSaver (langgraph-checkpoint-redis {version})",
        "versions": versions,
        "store": f"{server}: one JSON document per checkpoint, a checkpoint_latest string per thread, a search index",
        "config": {
            "integrity features": "none offered",
            "serializer": "JsonPlusRedisSerializer (default)",
            "read path": "get_tuple({thread_id}) through the latest pointer and list({thread_id}) through the search index",
            "isolation": "one key prefix per cell (checkpoint_prefix), one server per run",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [],
        "owners": THREADS,
    }


class MissingSetting(Exception):
    """The harness did not pass the server or the cell's prefix: a bad request, never the store refusing."""

    origin = "driver"


class Store(langgraph_sqlite_store.Store):
    """The SqliteSaver adapter's seed and read (one thread per context) over a RedisSaver on the cell's key prefix."""

    def __init__(self, config):
        # Not the parent's __init__: that one opens a SQLite file; this store is the server's keys.
        import redis

        for field in ("redis_url", "key_prefix"):
            if not config.get(field):
                raise MissingSetting(f"langgraph_redis_store needs config.{field}")
        from langgraph.checkpoint.redis import RedisSaver

        # The adapter owns the connection (the saver has no close()): it is closed when the store stops.
        self.client = redis.Redis.from_url(config["redis_url"])
        self.saver = RedisSaver(redis_client=self.client, **prefixes(config["key_prefix"]))
        self.saver.setup()

    def raw_paths(self):
        return {"store": "", "store_dir": ""}

    def close(self):
        self.client.close()


def open_store(directory, config):
    return Store(config)
