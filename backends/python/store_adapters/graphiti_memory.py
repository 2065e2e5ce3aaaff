"""graphiti-core as a memory system behind the stalebench store driver: the library itself on a real Neo4j.

Graphiti(uri, user, password) builds its own Neo4jDriver; build_indices_and_constraints() runs on open. The harness
decides every argument (the group id, the node names, each edge's fact and timestamps, the episodes, the read's
filter); this module only makes graphiti-core's own calls and returns what it returned. Without `config.llm` the LLM
client refuses every call (direct mode needs none: an answer then is an error, never a silent fallback); with it,
natural mode is graphiti-core's add_episode with its OpenAIGenericClient on that endpoint (the key from
STALEBENCH_LLM_API_KEY). The cross-encoder always refuses (Graphiti.search's default recipe needs none). Embeddings come from
the run's embedder through stalebench's loopback endpoint (_run_embedder.py). The server comes from NEO4J_URI,
NEO4J_USER and NEO4J_PASSWORD in the process environment (set by the harness; never in a request).
Ops (backends/python/PROTOCOL.md): reset, insert, search, list.
"""

import asyncio
import os
import re

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"  # no network besides the Neo4j server and the loopback embedder

from store_adapters._run_embedder import embed_texts, endpoint_of  # noqa: E402

GROUP = re.compile(r"^[A-Za-z0-9_-]+$")
SEARCH_OPTIONS = frozenset({"filtered"})


class RequestError(ValueError):
    """A request the harness got wrong (reported by the driver with origin "driver", never as the library's refusal)."""

    origin = "driver"


def versions():
    import importlib.metadata

    import graphiti_core  # noqa: F401  (ImportError here means: not installed)
    import neo4j  # noqa: F401

    return {name: importlib.metadata.version(name) for name in ("graphiti-core", "neo4j")}


def describe(config):
    found = versions()
    return {
        "label": f"graphiti-core {found['graphiti-core']}",
        "versions": found,
        "store": f"graphiti-core's own Neo4jDriver (neo4j {found['neo4j']}) on the server of NEO4J_URI, one group id per namespace",
        "config": {"search": "Graphiti.search(query, group_ids, num_results) = EDGE_HYBRID_SEARCH_RRF", "filtered read": "SearchFilters(expired_at=[[is_null]])", "llm": "refuses every call (direct mode)"},
    }


def iso(value):
    return None if value is None else value.isoformat()


def when(text):
    from datetime import datetime

    return None if text is None else datetime.fromisoformat(text.replace("Z", "+00:00"))


def edge_json(edge):
    return {
        "uuid": edge.uuid, "group_id": edge.group_id, "name": edge.name, "fact": edge.fact,
        "source_node_uuid": edge.source_node_uuid, "target_node_uuid": edge.target_node_uuid, "episodes": list(edge.episodes),
        "created_at": iso(edge.created_at), "valid_at": iso(edge.valid_at), "invalid_at": iso(edge.invalid_at),
        "expired_at": iso(edge.expired_at), "reference_time": iso(edge.reference_time),
    }


def language_model(llm):
    """graphiti-core's OpenAIGenericClient on the endpoint of the run's extraction model (temperature 0)."""
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

    key = os.environ.get("STALEBENCH_LLM_API_KEY") or "unused"
    return OpenAIGenericClient(config=LLMConfig(api_key=key, model=llm["model"], small_model=llm["model"], base_url=llm.get("base_url"), temperature=0))


def clients(url, dimensions):
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client.client import LLMClient

    class RunEmbedder(EmbedderClient):
        async def create(self, input_data):
            text = input_data[0] if isinstance(input_data, list) else input_data
            return (await asyncio.to_thread(embed_texts, url, [text], dimensions))[0]

        async def create_batch(self, input_data_list):
            return await asyncio.to_thread(embed_texts, url, input_data_list, dimensions)

    class RefusingLLM(LLMClient):
        async def _generate_response(self, *args, **kwargs):
            raise RuntimeError("graphiti-py direct mode has no language model: graphiti-core asked for one")

    class RefusingCrossEncoder(CrossEncoderClient):
        async def rank(self, query, passages):
            raise RuntimeError("graphiti-py has no cross-encoder: graphiti-core asked for a rerank")

    return RefusingLLM(config=None), RunEmbedder(), RefusingCrossEncoder()


class MemoryStore:
    """Namespaces are Graphiti group ids on one Neo4j server, in one Graphiti instance."""

    def __init__(self, directory, config):
        from graphiti_core import Graphiti

        url, dimensions = endpoint_of(config)
        missing = [name for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD") if name not in os.environ]
        if missing:
            raise RequestError(f"the process has no {', '.join(missing)}: the harness passes the Neo4j server through the environment")
        self.loop = asyncio.new_event_loop()
        self.llm, self.embedder, self.cross_encoder = clients(url, dimensions)
        self.has_llm = bool(config.get("llm"))
        if self.has_llm:
            self.llm = language_model(config["llm"])

        async def start():
            graphiti = Graphiti(os.environ["NEO4J_URI"], os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"], llm_client=self.llm, embedder=self.embedder, cross_encoder=self.cross_encoder)
            init = getattr(graphiti.driver, "_init_task", None)
            if init is not None:
                await init  # the driver starts an index build when constructed inside a loop; let it finish first
            await graphiti.build_indices_and_constraints()
            return graphiti

        self.graphiti = self.loop.run_until_complete(start())
        self.opened = {}

    def _run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def _group(self, namespace):
        if not isinstance(namespace, str) or not GROUP.match(namespace):
            raise RequestError(f"namespace {namespace!r} is not a Graphiti group id (letters, digits, _ and -)")
        return namespace

    def reset(self, namespace):
        from graphiti_core.utils.maintenance.graph_data_operations import clear_data

        self._run(clear_data(self.graphiti.driver, group_ids=[self._group(namespace)]))
        return {}

    async def _edges(self, group):
        from graphiti_core.edges import EntityEdge
        from graphiti_core.errors import GroupsEdgesNotFoundError

        try:
            return await EntityEdge.get_by_group_ids(self.graphiti.driver, [group])
        except GroupsEdgesNotFoundError:
            return []

    async def _direct(self, group, step):
        """The paper's probe: EntityNodes found by name in the group or created (name embedding, save), then one
        EntityEdge per fact from the first node to the second (fact embedding, save). No LLM call."""
        from graphiti_core.edges import EntityEdge
        from graphiti_core.nodes import EntityNode

        existing = {node.name: node for node in await EntityNode.get_by_group_ids(self.graphiti.driver, [group])}
        nodes = []
        for spec in step["nodes"]:
            node = existing.get(spec["name"])
            if node is None:
                node = EntityNode(name=spec["name"], group_id=group, labels=["Entity"], created_at=when(spec["created_at"]), summary="")
                await node.generate_name_embedding(self.embedder)
                await node.save(self.graphiti.driver)
                existing[node.name] = node
            nodes.append(node)
        if len(nodes) != 2:
            raise RequestError("a direct step names exactly two nodes: the source and the target of every edge")
        ids = []
        for spec in step["edges"]:
            edge = EntityEdge(
                name=spec["name"], fact=spec["fact"], group_id=group, source_node_uuid=nodes[0].uuid, target_node_uuid=nodes[1].uuid,
                created_at=when(spec["created_at"]), valid_at=when(spec["valid_at"]), invalid_at=when(spec["invalid_at"]),
                expired_at=when(spec["expired_at"]), episodes=[],
            )
            await edge.generate_embedding(self.embedder)
            await edge.save(self.graphiti.driver)
            ids.append(edge.uuid)
        return ids

    async def _episode(self, group, step):
        """add_episode(name, episode_body, source_description, reference_time, source=text, group_id): the library's
        own extraction, resolution and invalidation on the configured language model."""
        from graphiti_core.nodes import EpisodeType

        if not self.has_llm:
            raise RequestError("an episode step needs config.llm: graphiti-core's add_episode asks a language model")
        result = await self.graphiti.add_episode(
            name=step["name"], episode_body=step["content"], source_description=step["source_description"],
            reference_time=when(step["reference_time"]), source=EpisodeType.from_str(step["source"]), group_id=group,
        )
        return [edge.uuid for edge in result.edges]

    def insert(self, namespace, steps, extractor=None):
        """Each step in order: {"direct": {"nodes": [{name, created_at}] x2, "edges": [{name, fact, created_at,
        valid_at, invalid_at, expired_at}]}} or {"episode": {name, content, source, source_description, reference_time}}."""
        if extractor is not None:
            raise RequestError("graphiti-py takes no extractor: add_episode is the library's own")
        group = self._group(namespace)
        ids = []
        for step in steps:
            if "direct" in step:
                ids.extend(self._run(self._direct(group, step["direct"])))
            elif "episode" in step:
                ids.extend(self._run(self._episode(group, step["episode"])))
            else:
                raise RequestError(f"unknown insert step {sorted(step)}")
        return {"ids": ids, "stored": len(self._run(self._edges(group))), "history": {}}

    def search(self, namespace, query, k, options):
        from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

        unknown = sorted(set(options) - SEARCH_OPTIONS)
        if unknown:
            raise RequestError(f"search options {unknown} are not passed through; allowed: {sorted(SEARCH_OPTIONS)}")
        group = self._group(namespace)
        active = SearchFilters(expired_at=[[DateFilter(comparison_operator=ComparisonOperator.is_null)]]) if options.get("filtered") else None
        edges = self._run(self.graphiti.search(query, group_ids=[group], num_results=k, search_filter=active))
        return {"records": [edge_json(edge) for edge in edges], "invalidated_at": {}}

    def list(self, namespace):
        return {"records": [edge_json(edge) for edge in self._run(self._edges(self._group(namespace)))]}

    def close(self):
        try:
            self._run(self.graphiti.close())
        finally:
            self.loop.close()


def open_store(directory, config):
    return MemoryStore(directory, config)
