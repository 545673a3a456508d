import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from './wait.ts';

/**
 * Podman's Docker-compatible API for testcontainers: `podman system service` on a socket of this run, with
 * the repository's containers.conf (runc, the VM's ulimits). Ryuk, testcontainers' reaper, is off: its image
 * is not in any registry reachable here, and the run stops its own containers.
 */
export interface PodmanService {
  dockerHost: string;
  stop(): Promise<void>;
}

const containersConf = path.resolve(import.meta.dirname, '../containers/containers.conf');

/** The image test/containers/prepare.sh builds; undefined when podman or the image is not here. */
export function localPostgresImage(): string | undefined {
  const image = 'localhost/paywire-postgres:18';
  const exists = spawnSync('podman', ['image', 'exists', image], {
    env: { ...process.env, CONTAINERS_CONF: containersConf },
  });
  return exists.status === 0 ? image : undefined;
}

/**
 * Removes the port forwards of gone or exited containers (containers/stale-port-forwards.sh says why), as
 * `npm test`'s prepare step does, for a run of vitest alone after a killed run.
 */
export function removeStalePortForwards(): void {
  spawnSync(path.resolve(import.meta.dirname, '../containers/stale-port-forwards.sh'), {
    env: { ...process.env, CONTAINERS_CONF: containersConf },
    stdio: 'inherit',
  });
}

export async function startPodmanService(): Promise<PodmanService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paywire-podman-'));
  const socket = path.join(dir, 'podman.sock');
  const service: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    env: { ...process.env, CONTAINERS_CONF: containersConf },
    stdio: 'ignore',
  });
  await waitFor('podman system service to listen', () => existsSync(socket), 30_000);
  return {
    dockerHost: `unix://${socket}`,
    async stop() {
      service.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
