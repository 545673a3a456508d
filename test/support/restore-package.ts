import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Puts a package npm ci left out (an optional dependency whose build failed) back into node_modules at the
 * lockfile's version, refusing a tarball whose hash is not the lockfile's integrity. Nothing else in
 * node_modules is touched. Usage: node test/support/restore-package.ts <name>
 */
const name = process.argv[2] ?? '';
const root = path.resolve(import.meta.dirname, '../..');
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const entry = lock.packages[`node_modules/${name}`] as { version: string; integrity: string } | undefined;
if (!entry) throw new Error(`${name} is not in package-lock.json`);
const work = mkdtempSync(path.join(tmpdir(), 'paywire-restore-'));
try {
  const file = execFileSync('npm', ['pack', '--silent', `${name}@${entry.version}`], {
    cwd: work,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1) as string;
  const [algorithm, expected] = entry.integrity.split('-', 2) as [string, string];
  const actual = createHash(algorithm)
    .update(readFileSync(path.join(work, file)))
    .digest('base64');
  if (actual !== expected) throw new Error(`${file} does not match the lockfile's integrity`);
  const target = path.join(root, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(work, file), '--strip-components=1', '-C', target]);
  console.info(`restored ${name}@${entry.version} into node_modules`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
