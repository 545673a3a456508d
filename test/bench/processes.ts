import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeOptions } from '../../infra/node-options.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Extra node flags for every process a benchmark starts, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');

/** CPU time (user and system) of a process in ms, from /proc (Linux; ticks of 10 ms); 0 once it is gone. */
async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after the command name, from field 3
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
}

/**
 * CPU time in ms of each process of the PostgreSQL server whose data directory is dataDir, by pid: its
 * postmaster and every process it forked (backends, WAL writer, checkpointer...) alive at the time of reading.
 * By pid, so that a backend that exits between two readings (an idle pool connection closing) takes its
 * time with it instead of subtracting it from the others'.
 */
export async function postgresCpuMs(dataDir: string): Promise<Map<number, number>> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const commands = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
  );
  const postmaster = pids.find((_, i) => commands[i]?.includes(dataDir) && commands[i]?.includes('postgres'));
  if (postmaster === undefined) return new Map();
  const parents = await Promise.all(
    pids.map(async (pid) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    }),
  );
  const family = pids.filter((pid, i) => pid === postmaster || parents[i] === postmaster);
  return new Map(await Promise.all(family.map(async (pid) => [pid, await cpuMsOf(pid)] as const)));
}

/** The service's processes a benchmark starts, as npm start runs them (node options included); each resolves once listening. */
export function benchProcesses() {
  const children: ChildProcess[] = [];
  function launch(
    script: string,
    args: string[],
    env: Record<string, string>,
    stdin: 'ignore' | 'pipe',
  ): Promise<{ child: ChildProcess; line: string }> {
    const child = spawn(process.execPath, [...extraFlags, path.join(root, script), ...args], {
      env: { NODE_OPTIONS: serviceNodeOptions, ...process.env, ...env },
      stdio: [stdin, 'pipe', 'inherit'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        const line = chunk
          .toString()
          .split('\n')
          .find((text) => text.includes('listening'));
        if (line !== undefined) resolve({ child, line });
      });
      child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    });
  }
  return {
    start: async (script: string, args: string[], env: Record<string, string> = {}): Promise<ChildProcess> =>
      (await launch(script, args, env, 'ignore')).child,
    /** As start, with the line it announced itself with (`listening <url>`), and its stdin open for commands. */
    startAnnounced: (script: string, args: string[], env: Record<string, string> = {}) =>
      launch(script, args, env, 'pipe'),
    /** A process's CPU time so far in ms (Linux). */
    cpuMs: (child: ChildProcess): Promise<number> => cpuMsOf(child.pid as number),
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
