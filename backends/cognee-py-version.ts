// The cognee release the `cognee-py` memory system measures: the pin of backends/python/envs/cognee.txt.

/** The package as the Python process client checks it; a venv holding another version is refused. */
export const COGNEE_PY_PIN = { name: 'cognee', version: '1.6.5' } as const;
