import { benchRateLimit } from './bench-rate-limit.js';
const kind = (process.argv[2] ?? 'requests') as 'requests' | 'tokens';
const limit = Number(process.argv[3] ?? 40);
const fixed = process.argv[4] === 'fixed';
const row = await benchRateLimit(kind, limit, { calls: Number(process.argv[5] ?? 600), concurrency: 64, latencyMs: 50, fixed });
console.log(JSON.stringify(row));
