import { startNeo4jTestServer } from './neo4j/start-neo4j-test-server.js';
const server = await startNeo4jTestServer();
console.log(server.uri, server.version);
process.on('SIGTERM', async () => { await server.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
