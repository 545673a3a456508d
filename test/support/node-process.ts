import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs a script of the repository (a CLI, core's main) with Node as a child process, this process's
 * environment plus `env`; resolves with its exit code and its stdout and stderr together (killed after a
 * minute).
 */
export function runNode(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Core's main as a child process on 127.0.0.1:CORE_PORT, started and killed (SIGKILL) at will. */
export interface CoreProcess {
  /** Its tRPC endpoint, for a facade. */
  readonly trpcUrl: string;
  /**
   * Starts it and resolves once it answers: `ready` waits for /readyz (its workers started), `listening`
   * only for an HTTP answer (a restart under load is back sooner).
   */
  start(until?: 'ready' | 'listening'): Promise<void>;
  /** SIGKILL, as a crash: resolves once it has exited (at once if it is not running). */
  kill(): Promise<void>;
}

/** Core with this process's environment plus `env`, which names its CORE_PORT. */
export function coreProcess(env: Record<string, string> & { CORE_PORT: string }): CoreProcess {
  const base = `http://127.0.0.1:${env.CORE_PORT}`;
  let child: ChildProcess | undefined;
  const answers = (url: string, needOk: boolean) =>
    fetch(url).then(
      (response) => response.ok || !needOk,
      () => false,
    );
  return {
    trpcUrl: `${base}/trpc`,
    async start(until = 'ready') {
      const started = spawn(process.execPath, ['apps/core/src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: 'ignore',
      });
      child = started;
      // Bounded generously: a loaded 2-core machine can take many seconds to start a Node process.
      await waitFor(
        `core to be ${until}`,
        () => {
          if (started.exitCode !== null)
            throw new Error(`core exited with ${started.exitCode} before it answered`);
          return until === 'ready' ? answers(`${base}/readyz`, true) : answers(`${base}/trpc/`, false);
        },
        60_000,
      );
    },
    kill() {
      return new Promise((resolve) => {
        const running = child;
        if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
}
