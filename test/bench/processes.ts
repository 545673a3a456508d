import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The service's processes a benchmark starts, as npm start runs them; each resolves once listening. */
export function benchProcesses() {
  const children: ChildProcess[] = [];
  return {
    start(script: string, args: string[], env: Record<string, string> = {}): Promise<void> {
      const child = spawn(process.execPath, [path.join(root, script), ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      return new Promise((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('listening')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
      });
    },
    async stop(): Promise<void> {
      for (const child of children) child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    },
  };
}
