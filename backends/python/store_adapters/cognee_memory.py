"""cognee as a memory system behind the stalebench store driver: one cognee dataset per namespace, the library's own calls.

The harness decides every call (which texts to add, whether to run cognify or its chunk pipeline, the search); this
module makes those calls through cognee's public API and returns what the library returned, so nothing about cognee
is modelled here. Ops (backends/python/PROTOCOL.md): reset, insert, search, list.

Offline, with no language model: cognee's three downloads are prevented before it is imported (tiktoken's
cl100k_base comes from a local copy in TIKTOKEN_CACHE_DIR, HF_HUB_OFFLINE=1 and an OpenAI embedding model name keep
the tokenizer lookup local, LITELLM_LOCAL_MODEL_COST_MAP=True keeps litellm's cost map local), its embeddings go to
the harness's loopback endpoint through the openai_compatible provider, and a socket guard refuses any connection
that is not to loopback or to the configured model endpoint.
"""

import asyncio
import hashlib
import json
import os
import shutil
import socket
from urllib.parse import urlparse

# tiktoken caches a file under the sha1 of the URL it would download it from.
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
# Settings cognee (and litellm/openai under it) read from the environment: the harness's shell never chooses them.
ENVIRONMENT_PREFIXES = ("LLM_", "EMBEDDING_", "VECTOR_DB_", "GRAPH_DATABASE_", "GRAPH_DB_", "DB_", "COGNEE_", "CACHE_", "OPENAI_", "LITELLM_", "HUGGINGFACE_")
ENVIRONMENT_NAMES = ("DATA_ROOT_DIRECTORY", "SYSTEM_ROOT_DIRECTORY", "ENABLE_BACKEND_ACCESS_CONTROL", "MOCK_EMBEDDING", "STORAGE_BACKEND", "ENV", "HF_HUB_OFFLINE", "TIKTOKEN_CACHE_DIR", "TELEMETRY_DISABLED")
# The key of the user's model endpoint, set by the harness only for natural mode (never sent in a request).
LLM_KEY_VARIABLE = "STALEBENCH_COGNEE_LLM_API_KEY"
SEARCH_OPTIONS = frozenset({"top_k"})
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the library's refusal)."""

    origin = "driver"


def _plain(value):
    """The value as JSON types (UUIDs, datetimes and the like become their str)."""
    return json.loads(json.dumps(value, default=str))


def _versions():
    import importlib.metadata
    import importlib.util

    if importlib.util.find_spec("cognee") is None:
        raise ImportError("No module named 'cognee'")
    return {name: importlib.metadata.version(name) for name in ("cognee", "lancedb", "ladybug", "litellm", "tiktoken")}


def describe(config):
    # Not imported here: importing cognee loads its .env and configures logging, which open_store arranges first.
    versions = _versions()
    return {
        "label": f"cognee {versions['cognee']}",
        "versions": versions,
        "store": f"cognee's default engines (LanceDB {versions['lancedb']} vectors, Ladybug {versions['ladybug']} graph, SQLite metadata), one dataset per namespace with its own databases",
        "config": {"embedding_provider": "openai_compatible", "search": "search(query_type=CHUNKS, datasets=[namespace])"},
    }


def _guard_network(allowed_hosts):
    """Refuses every outgoing connection except to loopback and to the addresses `allowed_hosts` resolve to (the model
    endpoint's host, and a proxy the environment names): a name is checked where it is resolved, an address where it
    is connected to."""
    import ipaddress

    resolve = socket.getaddrinfo
    connect = socket.socket.connect
    names = {"localhost", *allowed_hosts}
    resolved = set()

    def guarded_resolve(host, *args, **kwargs):
        answers = resolve(host, *args, **kwargs)
        if isinstance(host, bytes):
            host = host.decode()
        if host in names:
            resolved.update(answer[4][0] for answer in answers)
        return answers

    def guarded_connect(self, address):
        if isinstance(address, tuple):
            host = address[0]
            try:
                loopback = ipaddress.ip_address(host).is_loopback
            except ValueError:
                loopback = host in names
            if not loopback and host not in resolved:
                raise OSError(f"stalebench cognee adapter: connection to {host} refused (offline: loopback and the model endpoint only)")
        return connect(self, address)

    socket.getaddrinfo = guarded_resolve
    socket.socket.connect = guarded_connect


class MemoryStore:
    """Every namespace is a cognee dataset of the same name; cognee gives each dataset its own vector and graph database."""

    def __init__(self, directory, config):
        embedding = config.get("embedding")
        if not isinstance(embedding, dict) or not {"endpoint", "model", "dimensions"} <= set(embedding):
            raise RequestError("config.embedding needs endpoint, model and dimensions")
        tiktoken_file = config.get("tiktoken_file")
        if not isinstance(tiktoken_file, str) or not os.path.isfile(tiktoken_file):
            raise RequestError(f"config.tiktoken_file {tiktoken_file!r} is not a file (cl100k_base.tiktoken)")
        llm = config.get("llm")
        removed = sorted(name for name in os.environ if (name.startswith(ENVIRONMENT_PREFIXES) or name in ENVIRONMENT_NAMES) and name != LLM_KEY_VARIABLE)
        llm_key = os.environ.pop(LLM_KEY_VARIABLE, None)
        for name in removed:
            del os.environ[name]
        self.opened = {"environment_removed": removed}
        os.makedirs(directory, exist_ok=True)
        cache = os.path.join(directory, "tiktoken")
        os.makedirs(cache, exist_ok=True)
        # A copy: tiktoken deletes a cached file whose hash does not match.
        shutil.copyfile(tiktoken_file, os.path.join(cache, hashlib.sha1(CL100K_URL.encode()).hexdigest()))
        env_file = os.path.join(directory, "cognee.env")
        open(env_file, "w").close()
        os.environ.update({
            "COGNEE_ENV_FILE": env_file,
            "DATA_ROOT_DIRECTORY": os.path.join(directory, "data"),
            "SYSTEM_ROOT_DIRECTORY": os.path.join(directory, "system"),
            "TELEMETRY_DISABLED": "1",
            "HF_HUB_OFFLINE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "TIKTOKEN_CACHE_DIR": cache,
            "EMBEDDING_PROVIDER": "openai_compatible",
            "EMBEDDING_MODEL": str(embedding["model"]),
            "EMBEDDING_ENDPOINT": str(embedding["endpoint"]),
            "EMBEDDING_DIMENSIONS": str(int(embedding["dimensions"])),
            "EMBEDDING_API_KEY": "unused",
        })
        allowed = []
        if llm is not None:
            if not isinstance(llm, dict) or not {"endpoint", "model"} <= set(llm):
                raise RequestError("config.llm needs endpoint and model")
            os.environ.update({
                "LLM_PROVIDER": "openai",
                # litellm routes by a provider prefix and sends the rest: the endpoint receives the alias unchanged.
                "LLM_MODEL": f"openai/{llm['model']}",
                "LLM_ENDPOINT": str(llm["endpoint"]),
                "LLM_API_KEY": llm_key or "unused",
            })
            # The endpoint's host, and the proxy the environment routes it through, if any.
            for url in (str(llm["endpoint"]), os.environ.get("HTTPS_PROXY", ""), os.environ.get("https_proxy", ""), os.environ.get("HTTP_PROXY", ""), os.environ.get("http_proxy", "")):
                host = urlparse(url).hostname if url else None
                if host:
                    allowed.append(host)
        self.llm = llm
        _guard_network(allowed)
        import cognee  # noqa: F401  (fails here, at open, when the package is missing)
        from cognee.modules.engine.operations.setup import setup

        self.loop = asyncio.new_event_loop()
        # cognee's relational metadata (users, datasets) is created by its setup(), as cognee's own pipelines do first.
        self._run(setup())

    def _run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    @staticmethod
    def _check(namespace):
        # cognee refuses dataset names with dots or spaces; the harness maps namespaces to plain names.
        if not isinstance(namespace, str) or not namespace or any(c in namespace for c in ". /\\"):
            raise RequestError(f"namespace {namespace!r} is not a plain cognee dataset name")
        return namespace

    async def _dataset(self, namespace):
        from cognee.modules.data.methods.get_datasets_by_name import get_datasets_by_name
        from cognee.modules.users.methods import get_default_user

        user = await get_default_user()
        found = await get_datasets_by_name(namespace, user.id)
        return found[0] if found else None

    def reset(self, namespace):
        import cognee

        async def reset():
            dataset = await self._dataset(self._check(namespace))
            if dataset is not None:
                await cognee.datasets.empty_dataset(dataset.id)

        self._run(reset())
        return {}

    def insert(self, namespace, steps, extractor=None):
        """Runs each step in order: {"add": {"text"}}, {"chunk_pipeline": {}} or {"cognify": {}}; returns the dataset's data ids."""
        import cognee

        if extractor is not None:
            raise RequestError("cognee takes no extractor argument here")
        namespace = self._check(namespace)

        async def insert():
            for step in steps:
                if "add" in step:
                    await cognee.add(step["add"]["text"], dataset_name=namespace)
                elif "chunk_pipeline" in step:
                    await cognee.run_custom_pipeline(tasks=await _chunk_tasks(), dataset=namespace)
                elif "cognify" in step:
                    if self.llm is None:
                        raise RequestError("cognify needs a model endpoint (config.llm); none was configured")
                    await cognee.cognify(datasets=[namespace], extractor="llm")
                else:
                    raise RequestError(f"unknown insert step {sorted(step)}")
            dataset = await self._dataset(namespace)
            return [] if dataset is None else [str(data.id) for data in await cognee.datasets.list_data(dataset.id)]

        ids = self._run(insert())
        return {"ids": ids, "stored": len(self._chunks(namespace)), "history": {}}

    def search(self, namespace, query, k, options):
        """`search(query_type=CHUNKS, query_text, datasets=[namespace])`, verbatim; `k` is the harness's cut, not cognee's."""
        import cognee
        from cognee import SearchType

        unknown = sorted(set(options) - SEARCH_OPTIONS)
        if unknown:
            raise RequestError(f"search options {unknown} are not passed through; allowed: {sorted(SEARCH_OPTIONS)}")
        found = self._run(cognee.search(query_text=query, query_type=SearchType.CHUNKS, datasets=[self._check(namespace)], **options))
        return {"records": _plain(found), "invalidated_at": {}}

    def _chunks(self, namespace):
        from cognee.context_global_variables import set_database_global_context_variables
        from cognee.infrastructure.databases.graph import get_graph_engine

        async def chunks():
            dataset = await self._dataset(namespace)
            if dataset is None:
                return []
            async with set_database_global_context_variables(dataset.id, dataset.owner_id):
                nodes, _ = await (await get_graph_engine()).get_graph_data()
            return [{"id": str(node_id), **properties} for node_id, properties in nodes if properties.get("type") == "DocumentChunk"]

        return _plain(self._run(chunks()))

    def list(self, namespace):
        return {"records": self._chunks(self._check(namespace))}

    def close(self):
        if not self.loop.is_closed():
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()


async def _chunk_tasks():
    """cognify's default task list without its one LLM task (extract_graph_and_summarize): the chunks search(CHUNKS) reads."""
    from cognee.infrastructure.llm import resolve_chunk_size
    from cognee.modules.chunking.TextChunker import TextChunker
    from cognee.modules.cognify.config import get_cognify_config
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.tasks.documents import classify_documents, extract_chunks_from_documents
    from cognee.tasks.storage import add_data_points

    configured = get_cognify_config().chunks_per_batch
    return [
        Task(classify_documents, needs_llm=False),
        Task(extract_chunks_from_documents, max_chunk_size=await resolve_chunk_size(None), chunker=TextChunker, needs_llm=False),
        Task(add_data_points, task_config={"batch_size": configured if configured is not None else 2000}, needs_llm=False),
    ]


def open_store(directory, config):
    return MemoryStore(directory, config)
