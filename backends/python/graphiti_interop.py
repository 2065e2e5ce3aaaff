"""graphiti-core itself on the test Neo4j, for stalebench's interop tests (backends/neo4j-graphiti-interop-*.test.ts).

Reads one JSON request on stdin and prints one JSON answer on stdout. No LLM is ever called: nodes and edges are
written through graphiti-core's own model classes and bulk save, and every embedding comes from the request's
table (stalebench's embedder computed them), so both sides rank with the same vectors.

Request: {"neo4j": {"uri", "user", "password"}, "embeddings": {text: vector}, "steps": [step, ...]}
Steps (each answers in "results", in order; a step that raises answers {"error": "<Type>: <message>"}):
  write_direct   {"group", "nodes": [{"key", "name", "created_at"}],
                  "edges": [{"key", "source", "target", "name", "fact", "created_at", "valid_at", "invalid_at", "expired_at"}]}
                 EntityNode.save / EntityEdge.save one by one, as the paper's probe seeds direct mode -> {key: uuid}
  write_episode  {"group", "now", "episode": {"name", "content", "source", "source_description", "reference_time"},
                  "nodes": [{"key", "name"}], "edges": [{"key", "source", "target", "name", "fact", "valid_at", "invalid_at"}]}
                 what add_episode saves, through add_nodes_and_edges_bulk with build_episodic_edges -> {key: uuid}
  read           {"group"}  -> EntityEdge / EntityNode / EpisodicNode / EpisodicEdge .get_by_group_ids
  search         {"group", "query", "limit", "filtered"} -> Graphiti.search (EDGE_HYBRID_SEARCH_RRF) and the two
                 search utilities it runs (edge_fulltext_search, edge_similarity_search), as ordered uuid lists
"""

import asyncio
import json
import os
import sys
from datetime import datetime

os.environ.setdefault('GRAPHITI_TELEMETRY_ENABLED', 'false')  # no network besides the Neo4j server

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
from graphiti_core.driver.neo4j_driver import Neo4jDriver  # noqa: E402
from graphiti_core.edges import EntityEdge, EpisodicEdge  # noqa: E402
from graphiti_core.embedder.client import EmbedderClient  # noqa: E402
from graphiti_core.errors import GroupsEdgesNotFoundError  # noqa: E402
from graphiti_core.llm_client.client import LLMClient  # noqa: E402
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode  # noqa: E402
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters  # noqa: E402
from graphiti_core.search.search_utils import edge_fulltext_search, edge_similarity_search  # noqa: E402
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk  # noqa: E402
from graphiti_core.utils.maintenance.edge_operations import build_episodic_edges  # noqa: E402


class TableEmbedder(EmbedderClient):
    """Answers from the request's table; an unknown text is an error (never a silent zero vector)."""

    def __init__(self, table):
        self.table = table

    async def create(self, input_data):
        text = input_data[0] if isinstance(input_data, list) else input_data
        if text not in self.table:
            raise KeyError(f'no embedding supplied for {text!r}')
        return self.table[text]

    async def create_batch(self, input_data_list):
        return [await self.create([text]) for text in input_data_list]


class NoLLM(LLMClient):
    async def _generate_response(self, *args, **kwargs):
        raise RuntimeError('the interop harness never calls an LLM')


class NoCrossEncoder(CrossEncoderClient):
    async def rank(self, query, passages):
        raise RuntimeError('the interop harness never reranks with a cross-encoder')


def when(text):
    return None if text is None else datetime.fromisoformat(text.replace('Z', '+00:00'))


def iso(value):
    return None if value is None else value.isoformat()


def edge_json(edge):
    return {
        'uuid': edge.uuid, 'group_id': edge.group_id, 'name': edge.name, 'fact': edge.fact,
        'source_node_uuid': edge.source_node_uuid, 'target_node_uuid': edge.target_node_uuid, 'episodes': edge.episodes,
        'created_at': iso(edge.created_at), 'valid_at': iso(edge.valid_at), 'invalid_at': iso(edge.invalid_at),
        'expired_at': iso(edge.expired_at), 'reference_time': iso(edge.reference_time), 'attributes': sorted(edge.attributes),
    }


async def write_direct(graphiti, embedder, step):
    uuids = {}
    for spec in step['nodes']:
        node = EntityNode(name=spec['name'], group_id=step['group'], labels=['Entity'], created_at=when(spec['created_at']), summary='')
        await node.generate_name_embedding(embedder)
        await node.save(graphiti.driver)
        uuids[spec['key']] = node.uuid
    for spec in step['edges']:
        edge = EntityEdge(
            name=spec['name'], fact=spec['fact'], group_id=step['group'], source_node_uuid=uuids[spec['source']],
            target_node_uuid=uuids[spec['target']], created_at=when(spec['created_at']), valid_at=when(spec['valid_at']),
            invalid_at=when(spec['invalid_at']), expired_at=when(spec['expired_at']),
        )
        await edge.generate_embedding(embedder)
        await edge.save(graphiti.driver)
        uuids[spec['key']] = edge.uuid
    return uuids


async def write_episode(graphiti, embedder, step):
    now, spec = when(step['now']), step['episode']
    episode = EpisodicNode(
        name=spec['name'], group_id=step['group'], labels=[], source=EpisodeType.from_str(spec['source']), content=spec['content'],
        source_description=spec['source_description'], created_at=now, valid_at=when(spec['reference_time']),
    )
    nodes = {item['key']: EntityNode(name=item['name'], group_id=step['group'], labels=['Entity'], summary='', created_at=now) for item in step['nodes']}
    for node in nodes.values():
        await node.generate_name_embedding(embedder)
    edges = {}
    for item in step['edges']:
        edge = EntityEdge(
            name=item['name'], fact=item['fact'], group_id=step['group'], source_node_uuid=nodes[item['source']].uuid,
            target_node_uuid=nodes[item['target']].uuid, episodes=[episode.uuid], created_at=now, valid_at=when(item['valid_at']),
            invalid_at=when(item['invalid_at']), reference_time=episode.valid_at,
        )
        await edge.generate_embedding(embedder)
        edges[item['key']] = edge
    episode.entity_edges = [edge.uuid for edge in edges.values()]
    mentions = build_episodic_edges(list(nodes.values()), episode.uuid, now)
    await add_nodes_and_edges_bulk(graphiti.driver, [episode], mentions, list(nodes.values()), list(edges.values()), embedder)
    return {'episode': episode.uuid, **{key: node.uuid for key, node in nodes.items()}, **{key: edge.uuid for key, edge in edges.items()}}


async def read(graphiti, step):
    groups = [step['group']]
    try:
        edges = [edge_json(edge) for edge in await EntityEdge.get_by_group_ids(graphiti.driver, groups)]
    except GroupsEdgesNotFoundError:
        edges = []
    try:
        mentions = [{'uuid': m.uuid, 'group_id': m.group_id, 'source_node_uuid': m.source_node_uuid, 'target_node_uuid': m.target_node_uuid, 'created_at': iso(m.created_at)}
                    for m in await EpisodicEdge.get_by_group_ids(graphiti.driver, groups)]
    except GroupsEdgesNotFoundError:
        mentions = []
    nodes = [{'uuid': n.uuid, 'name': n.name, 'labels': sorted(n.labels), 'attributes': sorted(n.attributes), 'created_at': iso(n.created_at)}
             for n in await EntityNode.get_by_group_ids(graphiti.driver, groups)]
    episodes = [{'uuid': e.uuid, 'name': e.name, 'source': e.source.value, 'source_description': e.source_description, 'content': e.content,
                 'entity_edges': e.entity_edges, 'created_at': iso(e.created_at), 'valid_at': iso(e.valid_at)}
                for e in await EpisodicNode.get_by_group_ids(graphiti.driver, groups)]
    return {'edges': edges, 'nodes': nodes, 'episodes': episodes, 'mentions': mentions}


async def search(graphiti, embedder, step):
    groups, limit = [step['group']], step['limit']
    active = SearchFilters(expired_at=[[DateFilter(comparison_operator=ComparisonOperator.is_null)]]) if step['filtered'] else SearchFilters()
    edges = await graphiti.search(step['query'], group_ids=groups, num_results=limit, search_filter=active)
    vector = await embedder.create([step['query'].replace('\n', ' ')])
    fulltext = await edge_fulltext_search(graphiti.driver, step['query'], active, groups, 2 * limit)
    similar = await edge_similarity_search(graphiti.driver, vector, None, None, active, groups, 2 * limit)
    return {'edges': [edge_json(edge) for edge in edges], 'fulltext': [e.uuid for e in fulltext], 'similarity': [e.uuid for e in similar]}


async def main():
    request = json.load(sys.stdin)
    server = request['neo4j']
    driver = Neo4jDriver(server['uri'], server.get('user'), server.get('password'))
    if driver._init_task is not None:
        await driver._init_task  # graphiti-core builds its indexes on construction; let it finish first
    embedder = TableEmbedder(request['embeddings'])
    graphiti = Graphiti(graph_driver=driver, llm_client=NoLLM(config=None), embedder=embedder, cross_encoder=NoCrossEncoder())
    results = []
    try:
        for step in request['steps']:
            try:
                if step['op'] == 'write_direct':
                    results.append(await write_direct(graphiti, embedder, step))
                elif step['op'] == 'write_episode':
                    results.append(await write_episode(graphiti, embedder, step))
                elif step['op'] == 'read':
                    results.append(await read(graphiti, step))
                elif step['op'] == 'search':
                    results.append(await search(graphiti, embedder, step))
                else:
                    results.append({'error': f"ValueError: unknown op {step['op']!r}"})
            except Exception as error:  # reported per step: the test names the failing graphiti-core call
                results.append({'error': f'{type(error).__name__}: {error}'})
    finally:
        await graphiti.close()
    from importlib.metadata import version
    print(json.dumps({'results': results, 'versions': {'graphiti-core': version('graphiti-core')}}))


asyncio.run(main())
