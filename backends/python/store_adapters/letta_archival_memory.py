"""Letta's archival memory as a memory system behind the stalebench store driver: one agent per user, in-process, no model.

A namespace is one Letta user (its own User row in one organization) with one agent; the agent's archival memory is
its default archive. Writes are Letta's own archival insert (PassageManager.insert_passage, what the
archival_memory_insert tool calls), reads its own archival search (AgentManager.search_agent_archival_memory_async,
what the archival_memory_search tool calls). Letta embeds every passage and every query itself, through its OpenAI
embedding client, at the agent's EmbeddingConfig: the harness points it at a loopback OpenAI-compatible server that
answers with the run's embedder (config: embedding_endpoint, embedding_model, dimensions). The agent's LLMConfig names
a dead loopback endpoint: nothing here calls a model.

The PostgreSQL is the one the pgserver wheel bundles (16.2, pgvector), as in letta_block_history.py: started with its
own initdb/pg_ctl on <dir>/pgdata, listening only on a unix socket in a short private directory (a socket path must
stay under 108 bytes), stopped on close. The schema is Letta's ORM metadata (create_all; the wheel ships no migrations)
plus the one thing its migrations add that create_all cannot: the sequence behind messages.sequence_id (the ORM marks it
a server-side value), which creating an agent needs for the agent's system message. Ops (backends/python/PROTOCOL.md): reset, insert, search, list.
"""

import asyncio
import importlib.metadata
import os
import shutil
import subprocess
import tempfile
import uuid

from store_adapters.letta_block_history import as_postgres, letta_absent, pg_bin

DATABASE = "letta"
ORGANIZATION = "org-00000000-0000-4000-8000-0000000000fd"
LIST_LIMIT = 100_000
# Read switches the harness may set; anything else is a harness fault, never passed through silently.
SEARCH_OPTIONS = frozenset()


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the library's refusal)."""

    origin = "driver"


def describe(config):
    import importlib.util

    import pgserver  # noqa: F401  (ImportError here means: not installed)

    # letta itself is not imported here: its settings and engine are fixed at import, before open sets LETTA_PG_URI
    if importlib.util.find_spec("letta") is None:
        raise letta_absent()
    server = subprocess.run([os.path.join(pg_bin(), "postgres"), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    version = importlib.metadata.version("letta")
    return {
        "label": f"Letta archival memory (letta {version})",
        "versions": {name: importlib.metadata.version(name) for name in ("letta", "pgserver", "SQLAlchemy", "asyncpg", "pgvector")},
        "store": f"{server} (pgserver wheel's binaries, pgvector), Letta's ORM tables (passages in archival_passages)",
        "config": {
            "namespaces": "one Letta user per namespace, each with one agent (include_base_tools=False) and its default archive",
            "write path": "PassageManager.insert_passage(agent_state, text, actor) (the archival_memory_insert tool's call)",
            "read path": "AgentManager.search_agent_archival_memory_async(agent_id, actor, query, top_k) (the archival_memory_search tool's call)",
            "embedder": "Letta's own OpenAI embedding client at the agent's EmbeddingConfig, pointed at the harness's loopback server",
            "schema": "Letta's ORM metadata (create_all); the wheel ships no migrations",
        },
    }


def _user_id(namespace, generation):
    return f"user-{uuid.uuid5(uuid.NAMESPACE_URL, f'stalebench-letta-archival:{namespace}:{generation}')}"


class ArchivalStore:
    """Namespaces as Letta users, each with one agent; reset deletes the agent and its archive through Letta."""

    def __init__(self, directory, config):
        for key in ("embedding_endpoint", "embedding_model", "dimensions"):
            if not config.get(key):
                raise RequestError(f"open needs config.{key}")
        self.config = config
        self.directory = directory
        self.pgdata = os.path.join(directory, "pgdata")
        self.bin = pg_bin()
        self.started = False
        self.agents = {}  # namespace -> (actor, agent_state)
        self.generations = {}  # namespace -> resets so far (a reset namespace gets a fresh user)
        self.loop = asyncio.new_event_loop()
        self.socket_dir = tempfile.mkdtemp(prefix="lta-")
        self._start_postgres()
        try:
            # read by letta.settings when letta is first imported (below, in _setup): set before any letta import
            os.environ["LETTA_PG_URI"] = f"postgresql://postgres@localhost/{DATABASE}?host={self.socket_dir}&ssl=disable"
            self._run(self._setup())
        except BaseException:
            self._stop_postgres()
            raise

    def _pg(self, *command, check=True):
        done = subprocess.run(as_postgres([os.path.join(self.bin, command[0]), *command[1:]]), capture_output=True, text=True)
        if check and done.returncode != 0:
            raise RuntimeError(f"{command[0]} exited {done.returncode}: {(done.stderr or done.stdout).strip()[-500:]}")
        return done

    def _start_postgres(self):
        os.makedirs(self.pgdata, exist_ok=True)
        if os.geteuid() == 0:
            # PostgreSQL runs as `postgres`: it must reach the data directory through root's private temp directories
            path = self.directory
            while path not in ("/", ""):
                if not os.stat(path).st_mode & 0o001:
                    os.chmod(path, os.stat(path).st_mode | 0o011)
                path = os.path.dirname(path)
            shutil.chown(self.pgdata, "postgres", "postgres")
            shutil.chown(self.socket_dir, "postgres", "postgres")
        os.chmod(self.pgdata, 0o700)
        self._pg("initdb", "-D", self.pgdata, "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self._pg("pg_ctl", "-D", self.pgdata, "-o", f"-c listen_addresses='' -k {self.socket_dir}", "-l", os.path.join(self.pgdata, "server.log"), "-w", "start")
        self.started = True
        self._pg("createdb", "-h", self.socket_dir, "-U", "postgres", DATABASE)
        self._pg("psql", "-h", self.socket_dir, "-U", "postgres", "-d", DATABASE, "-v", "ON_ERROR_STOP=1", "-c", "CREATE EXTENSION IF NOT EXISTS vector")

    def _run(self, work):
        return self.loop.run_until_complete(work)

    async def _setup(self):
        from letta.orm import Base
        from letta.schemas.organization import Organization
        from letta.server.db import engine
        from letta.services.organization_manager import OrganizationManager

        from sqlalchemy import text

        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)
            # messages.sequence_id is a server-side value (FetchedValue) that Letta's migrations give a sequence;
            # create_all cannot, and creating an agent writes its system message
            await connection.execute(text("CREATE SEQUENCE IF NOT EXISTS messages_sequence_id_seq OWNED BY messages.sequence_id"))
            await connection.execute(text("ALTER TABLE messages ALTER COLUMN sequence_id SET DEFAULT nextval('messages_sequence_id_seq')"))
        await OrganizationManager().create_organization_async(Organization(id=ORGANIZATION, name="stalebench-frontdoor"))

    def _path_check(self, namespace):
        if not isinstance(namespace, str) or namespace == "":
            raise RequestError(f"namespace {namespace!r} is not a name")

    async def _agent(self, namespace):
        from letta.schemas.agent import CreateAgent
        from letta.schemas.embedding_config import EmbeddingConfig
        from letta.schemas.llm_config import LLMConfig
        from letta.schemas.user import User
        from letta.services.agent_manager import AgentManager
        from letta.services.user_manager import UserManager

        self._path_check(namespace)
        if namespace not in self.agents:
            generation = self.generations.get(namespace, 0)
            actor = await UserManager().create_actor_async(User(id=_user_id(namespace, generation), name=namespace[:200], organization_id=ORGANIZATION))
            embedding = EmbeddingConfig(
                embedding_endpoint_type="openai",
                embedding_endpoint=self.config["embedding_endpoint"],
                embedding_model=self.config["embedding_model"],
                embedding_dim=int(self.config["dimensions"]),
                embedding_chunk_size=300,
            )
            # never called: no step of this adapter runs the agent
            llm = LLMConfig(model="unused", model_endpoint_type="openai", model_endpoint="http://127.0.0.1:9/v1", context_window=8192)
            agent = await AgentManager().create_agent_async(
                CreateAgent(name=f"agent-{generation}", llm_config=llm, embedding_config=embedding, include_base_tools=False, memory_blocks=[]),
                actor,
            )
            self.agents[namespace] = (actor, agent)
        return self.agents[namespace]

    async def _insert(self, namespace, steps):
        from letta.services.passage_manager import PassageManager

        actor, agent = await self._agent(namespace)
        passages = PassageManager()
        ids = []
        for step in steps:
            if set(step) != {"insert"}:
                raise RequestError(f"unknown insert step {sorted(step)}")
            call = step["insert"]
            created = await passages.insert_passage(agent_state=agent, text=call["text"], actor=actor, tags=call.get("tags") or None)
            ids.extend(passage.id for passage in created)
        return {"ids": ids, "stored": len(await self._all(namespace)), "history": {}}

    async def _all(self, namespace):
        from letta.services.agent_manager import AgentManager

        actor, agent = await self._agent(namespace)
        found = await AgentManager().query_agent_passages_async(actor=actor, agent_id=agent.id, limit=LIST_LIMIT)
        return [{"id": passage.id, "content": passage.text, "tags": passage.tags or []} for passage, _score, _meta in found]

    async def _search(self, namespace, query, k):
        from letta.services.agent_manager import AgentManager

        actor, agent = await self._agent(namespace)
        return await AgentManager().search_agent_archival_memory_async(agent_id=agent.id, actor=actor, query=query, top_k=k)

    async def _reset(self, namespace):
        from letta.services.agent_manager import AgentManager
        from letta.services.archive_manager import ArchiveManager

        self._path_check(namespace)
        if namespace in self.agents:
            actor, agent = self.agents.pop(namespace)
            archives = ArchiveManager()
            for archive_id in await AgentManager().get_agent_archive_ids_async(agent_id=agent.id, actor=actor):
                await archives.delete_archive_async(archive_id=archive_id, actor=actor)
            await AgentManager().delete_agent_async(agent_id=agent.id, actor=actor)
        # the next use is a new user with a new agent: nothing of the old one is reachable from it
        self.generations[namespace] = self.generations.get(namespace, 0) + 1
        return {}

    def reset(self, namespace):
        return self._run(self._reset(namespace))

    def insert(self, namespace, steps, extractor=None):
        """Runs each step in order: {"insert": {text, tags?}}, one insert_passage call each."""
        if extractor is not None:
            raise RequestError("letta-archival writes verbatim (insert_passage): no extractor")
        return self._run(self._insert(namespace, steps))

    def search(self, namespace, query, k, options):
        unknown = sorted(set(options) - SEARCH_OPTIONS)
        if unknown:
            raise RequestError(f"search options {unknown} are not passed through; allowed: {sorted(SEARCH_OPTIONS)}")
        return {"records": self._run(self._search(namespace, query, int(k))), "invalidated_at": {}}

    def list(self, namespace):
        return {"records": self._run(self._all(namespace))}

    def close(self):
        from letta.server.db import engine

        try:
            self._run(engine.dispose())
            self.loop.close()
        finally:
            self._stop_postgres()
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def _stop_postgres(self):
        if self.started:
            self._pg("pg_ctl", "-D", self.pgdata, "-m", "fast", "-w", "stop", check=False)
            self.started = False


def open_store(directory, config):
    return ArchivalStore(directory, config)
