// Test helper process: tries to take a run-directory lock, prints `won <nonce>` or `lost <message>`, holds a win until
// its stdin closes. Every racer prints `ready` once loaded and starts on the line `go`, so all of them try at once.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { acquireRunLock, type RunLock } from '../run/run-lock.js';

const [runDir] = process.argv.slice(2);
const stdin = createInterface({ input: process.stdin });
const go = once(stdin, 'line');
const closed = once(stdin, 'close');
console.log('ready');
await go;
let lock: RunLock | undefined;
try {
  lock = await acquireRunLock(runDir!, {
    nonce: randomBytes(4).toString('hex'),
    log: (line) => console.log(`log ${line}`),
  });
  console.log(`won ${lock.holder.nonce}`);
} catch (error) {
  console.log(`lost ${(error as Error).message}`);
}
// The test closes stdin once every racer has said won or lost: a win is held until all the others have tried.
await closed;
lock?.release();
