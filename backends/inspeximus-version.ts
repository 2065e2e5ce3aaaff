// The inspeximus release this project measures: the exact pin of backends/python/requirements.txt (a test compares them).

/** The measured version; a venv holding another one is refused before a run writes anything. */
export const INSPEXIMUS_VERSION = '3.23.1';

/** The package as the Python process client checks it. */
export const INSPEXIMUS_PIN = { name: 'inspeximus', version: INSPEXIMUS_VERSION } as const;
