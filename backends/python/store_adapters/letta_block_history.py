"""Letta's core-memory checkpoint history (block_history) behind the stalebench store driver, in-process, no server, no model.

One context is one core-memory block owned by its own organization and user (A and B share nothing). Each seeded record
is one checkpoint: the block's value is set through BlockManager.update_block_async (create_or_update_block_async for
the first) and checkpointed with checkpoint_block_async, so block_history holds sequence 1..n and
block.current_history_entry_id points at the newest. The read path is agmi's: get_block_by_id_async, then
undo_checkpoint_block back to the earliest checkpoint and redo_checkpoint_block forward to the highest, every value
the block takes on the way being served.

Letta 0.16.8 persists only to PostgreSQL (its engine is built from LETTA_PG_URI at import; the wheel ships no
migrations, so a fresh database gets Letta's own ORM metadata through create_all after CREATE EXTENSION vector). The
PostgreSQL is the one the pgserver wheel bundles (16.2, with pgvector), started here with its own initdb/pg_ctl on
<dir>/store/pgdata, listening only on a unix socket in that directory, and stopped on close, so a stopped store is a
plain data directory the harness edits with the same binaries and psql.
"""

import asyncio
import os
import shutil
import subprocess

STORE_DIR = "store"
PGDATA = os.path.join(STORE_DIR, "pgdata")
DATABASE = "letta"
# Fixed ids so the raw side knows each context's block (the owner of its history rows) without opening the store.
ORGS = {"A": "org-00000000-0000-4000-8000-00000000000a", "B": "org-00000000-0000-4000-8000-00000000000b"}
USERS = {"A": "user-00000000-0000-4000-8000-00000000000a", "B": "user-00000000-0000-4000-8000-00000000000b"}
BLOCKS = {"A": "block-00000000-0000-4000-8000-00000000000a", "B": "block-00000000-0000-4000-8000-00000000000b"}


def pg_bin():
    """The pgserver wheel's PostgreSQL binaries (initdb, pg_ctl, psql, postgres)."""
    import pgserver

    return os.path.join(os.path.dirname(pgserver.__file__), "pginstall", "bin")


def as_postgres(command):
    """PostgreSQL refuses to run as root: as root, run it as the system user `postgres` (runuser)."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PackageCannotRun(ImportError):
    """The installed distribution is the pinned one but cannot run this adapter at all (reinstalling changes nothing)."""


def letta_absent():
    """Why `import letta` cannot work: the PyPI name letta now ships Letta Code (module letta_code), or nothing is there."""
    import importlib.metadata
    import importlib.util

    try:
        version = importlib.metadata.version("letta")
    except importlib.metadata.PackageNotFoundError:
        return ImportError("No module named 'letta'")
    if importlib.util.find_spec("letta_code") is not None:
        return PackageCannotRun(
            f"letta {version} on PyPI is Letta Code, the terminal CLI (module letta_code, a bundled Node payload): it ships "
            "no Python letta package, so there is no BlockManager, block_history, archival memory or server to run "
            "in-process (0.16.8 is the newest release of the server library under that name)"
        )
    return ImportError(f"letta {version} is installed but has no module named 'letta'")


def describe(config):
    import importlib.metadata
    import importlib.util

    import pgserver  # noqa: F401  (ImportError here means: not installed)

    # letta itself is not imported here: its settings and engine are fixed at import, before open sets LETTA_PG_URI
    if importlib.util.find_spec("letta") is None:
        raise letta_absent()

    server = subprocess.run([os.path.join(pg_bin(), "postgres"), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    return {
        "label": f"Letta core memory checkpoint history (letta {importlib.metadata.version('letta')})",
        "versions": {
            "letta": importlib.metadata.version("letta"),
            "pgserver": importlib.metadata.version("pgserver"),
            "SQLAlchemy": importlib.metadata.version("SQLAlchemy"),
            "asyncpg": importlib.metadata.version("asyncpg"),
        },
        "store": f"{server} (pgserver wheel's binaries, pgvector), block and block_history tables",
        "config": {
            "integrity features": "none offered",
            "contexts": "one core-memory block per context, each in its own organization with its own user",
            "write path": "BlockManager.create_or_update_block_async / update_block_async, then checkpoint_block_async",
            "read path": "get_block_by_id_async, then undo_checkpoint_block to the earliest and redo_checkpoint_block to the highest",
            "schema": "Letta's ORM metadata (create_all); the wheel ships no migrations",
        },
        "detection": "read",
        "audit": False,
        "revocation_fields": [],
        "raw_files": [PGDATA],
        "owners": BLOCKS,
    }


class Store:
    def __init__(self, directory, config):
        self.directory = directory
        self.pgdata = os.path.join(directory, PGDATA)
        self.bin = pg_bin()
        self.started = False
        self.loop = asyncio.new_event_loop()
        self._start_postgres()
        try:
            # read by letta.settings when letta is first imported (below, in _setup): set before any letta import
            os.environ["LETTA_PG_URI"] = f"postgresql://postgres@localhost/{DATABASE}?host={self.pgdata}&ssl=disable"
            self._run(self._setup())
        except BaseException:
            self._stop_postgres()
            raise

    def _pg(self, *command, check=True):
        return subprocess.run(as_postgres([os.path.join(self.bin, command[0]), *command[1:]]), capture_output=True, text=True, check=check)

    def _start_postgres(self):
        store = os.path.join(self.directory, STORE_DIR)
        fresh = not os.path.exists(os.path.join(self.pgdata, "PG_VERSION"))
        if fresh:
            os.makedirs(self.pgdata, exist_ok=True)
            if os.geteuid() == 0:
                # the cell directory is root's 0700 temp dir: let `postgres` traverse it and own the store
                os.chmod(self.directory, 0o711)
                shutil.chown(store, "postgres", "postgres")
                shutil.chown(self.pgdata, "postgres", "postgres")
            os.chmod(self.pgdata, 0o700)
            self._pg("initdb", "-D", self.pgdata, "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self._pg("pg_ctl", "-D", self.pgdata, "-o", f"-c listen_addresses='' -k {self.pgdata}", "-l", os.path.join(self.pgdata, "server.log"), "-w", "start")
        self.started = True
        if fresh:
            self._pg("createdb", "-h", self.pgdata, "-U", "postgres", DATABASE)
            self._pg("psql", "-h", self.pgdata, "-U", "postgres", "-d", DATABASE, "-v", "ON_ERROR_STOP=1", "-c", "CREATE EXTENSION IF NOT EXISTS vector")

    def _run(self, work):
        return self.loop.run_until_complete(work)

    async def _setup(self):
        from letta.orm import Base
        from letta.server.db import engine

        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)

    async def _actor(self, context):
        from letta.schemas.organization import Organization
        from letta.schemas.user import User
        from letta.services.organization_manager import OrganizationManager
        from letta.services.user_manager import UserManager

        from letta.orm.errors import NoResultFound as OrmNoResultFound
        from sqlalchemy.exc import NoResultFound

        absent = (NoResultFound, OrmNoResultFound)  # the organization manager raises Letta's, the user manager SQLAlchemy's

        organizations, users = OrganizationManager(), UserManager()
        try:
            await organizations.get_organization_by_id_async(ORGS[context])
        except absent:  # absent on the first seed: created through Letta's own manager
            await organizations.create_organization_async(Organization(id=ORGS[context], name=f"context-{context}"))
        try:
            return await users.get_actor_by_id_async(USERS[context])
        except absent:
            return await users.create_actor_async(User(id=USERS[context], name=f"user-{context}", organization_id=ORGS[context]))

    async def _seed(self, context, records):
        from letta.schemas.block import Block, BlockUpdate
        from letta.services.block_manager import BlockManager

        actor = await self._actor(context)
        blocks = BlockManager()
        ids = []
        for record in records:
            metadata = dict(record.get("labels") or {})
            if await blocks.get_block_by_id_async(BLOCKS[context], actor) is None:
                await blocks.create_or_update_block_async(Block(id=BLOCKS[context], label="human", value=record["text"], metadata=metadata, limit=100000), actor)
            else:
                await blocks.update_block_async(BLOCKS[context], BlockUpdate(value=record["text"], metadata=metadata), actor)
            block = await blocks.checkpoint_block_async(BLOCKS[context], actor)
            ids.append(f"{block.id}#{len(ids) + 1}")
        return ids

    async def _read(self, context):
        from letta.errors import LettaInvalidArgumentError
        from letta.services.block_manager import BlockManager

        actor = await self._actor(context)
        blocks = BlockManager()
        block = await blocks.get_block_by_id_async(BLOCKS[context], actor)
        if block is None:
            return {"status": "served", "texts": []}
        texts = [block.value]
        for move in (blocks.undo_checkpoint_block, blocks.redo_checkpoint_block):
            while True:
                try:
                    block = await move(BLOCKS[context], actor)
                except LettaInvalidArgumentError as error:
                    if "earliest checkpoint" in str(error) or "highest checkpoint" in str(error):
                        break  # the normal end of the walk, as Letta words it
                    raise
                if block.value not in texts:
                    texts.append(block.value)
        return {"status": "served", "texts": texts}

    def seed(self, context, records):
        return self._run(self._seed(context, records))

    def read(self, context):
        return self._run(self._read(context))

    def raw_paths(self):
        return {"store": PGDATA, "store_dir": STORE_DIR}

    def close(self):
        from letta.server.db import engine

        try:
            self._run(engine.dispose())
            self.loop.close()
        finally:
            self._stop_postgres()

    def _stop_postgres(self):
        if self.started:
            self._pg("pg_ctl", "-D", self.pgdata, "-m", "fast", "-w", "stop", check=False)
            self.started = False


def open_store(directory, config):
    return Store(directory, config)
