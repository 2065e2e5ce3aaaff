// The graphiti-core release the Graphiti port models (backends/graphiti-port.md lists what differs from it).

/** PyPI version of graphiti-core whose behaviour backends/graphiti-*.ts reproduce; the interop tests run this one. */
export const GRAPHITI_CORE_VERSION = '0.31.2';

/** How manifests, integrity rows and front-door rows name the modelled library. */
export const GRAPHITI_CORE_LABEL = `graphiti-core ${GRAPHITI_CORE_VERSION}`;
