import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeOptions } from '../../infra/node-options.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Extra node flags for every process a benchmark starts, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');

/** The service's processes a benchmark starts, as npm start runs them (node options included); each resolves once listening. */
export function benchProcesses() {
  const children: ChildProcess[] = [];
  return {
    start(script: string, args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
      const child = spawn(process.execPath, [...extraFlags, path.join(root, script), ...args], {
        env: { NODE_OPTIONS: serviceNodeOptions, ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      return new Promise((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('listening')) resolve(child);
        });
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
      });
    },
    /** A process's resident memory in MB (Linux). */
    async rssMb(child: ChildProcess): Promise<number> {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    async stop(): Promise<void> {
      for (const child of children) child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    },
  };
}
