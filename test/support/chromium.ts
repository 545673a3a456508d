import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The browser tests drive Debian's Chromium through playwright-core (1.64.1 drives Chromium 156, bookworm's). */
export const chromiumPath = '/usr/bin/chromium';

/** Debian's chromium, installed if missing; a failure stops the file with the reason (never a skip). */
export async function ensureChromium(): Promise<void> {
  if (existsSync(chromiumPath)) return;
  const command = 'apt-get update && apt-get install -y --no-install-recommends chromium';
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('sh', ['-c', command], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.stdout.on('data', (chunk) => output.push(String(chunk)));
    child.stderr.on('data', (chunk) => output.push(String(chunk)));
    child.on('error', (error) => {
      output.push(String(error));
      resolve(null);
    });
    child.on('close', resolve);
  });
  if (code !== 0 || !existsSync(chromiumPath)) {
    throw new Error(
      `The browser tests need Chromium at ${chromiumPath}; \`${command}\` failed ` +
        `(exit ${code}). Install it (as root) and run again. Last output:\n${output.join('').slice(-2000)}`,
    );
  }
}
