// Test helper process: tries to take a run-directory lock, prints `won <nonce>` or `lost <message>`, holds a win for a while.
import { randomBytes } from 'node:crypto';
import { acquireRunLock } from '../run/run-lock.js';

const [runDir, holdMs = '1500', startAt = '0'] = process.argv.slice(2);
// Start together: every racer waits for the same wall-clock instant.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
try {
  const lock = await acquireRunLock(runDir!, {
    nonce: randomBytes(4).toString('hex'),
    log: (line) => console.log(`log ${line}`),
  });
  console.log(`won ${lock.holder.nonce}`);
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  lock.release();
} catch (error) {
  console.log(`lost ${(error as Error).message}`);
}
