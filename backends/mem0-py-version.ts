// The Python mem0ai release the `mem0-py` memory systems measure: the pin of backends/python/envs/mem0-py.txt.

/** The package as the Python process client checks it; a venv holding another version is refused. */
export const MEM0_PY_PIN = { name: 'mem0ai', version: '2.0.20' } as const;
