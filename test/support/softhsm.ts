import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where Debian's softhsm2 package puts the PKCS#11 library. */
export const softHsmModule = '/usr/lib/softhsm/libsofthsm2.so';

export interface SoftHsmToken {
  module: string;
  tokenLabel: string;
  pin: string;
  /** SOFTHSM2_CONF for child processes (this process's is set already). */
  conf: string;
}

const banner = (text: string) => {
  const line = '#'.repeat(text.length + 6);
  process.stderr.write(`${line}\n## ${text} ##\n${line}\n`);
};

/**
 * SoftHSM2 from Debian, installed with apt-get when missing (as test/containers/run.sh installs podman), and
 * the pkcs11js binding (built by test/prepare.sh where npm ci could not); false, said loudly, when either
 * cannot be had here, so the HSM proof is skipped rather than passed.
 */
export function softHsmAvailable(): boolean {
  try {
    createRequire(import.meta.url)('pkcs11js');
  } catch {
    banner(
      'SKIPPED: the pkcs11js binding is not built here (test/prepare.sh); the PKCS#11 key provider is NOT proven',
    );
    return false;
  }
  if (existsSync(softHsmModule)) return true;
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', 'softhsm2'], {
      stdio: 'ignore',
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch {
    // reported below
  }
  if (existsSync(softHsmModule)) return true;
  banner('SKIPPED: softhsm2 cannot be installed here; the PKCS#11 key provider is NOT proven');
  return false;
}

/**
 * A fresh SoftHSM2 token in its own directory: SOFTHSM2_CONF is set for this process (before the library is
 * first loaded) and returned for child processes.
 */
export function newSoftHsmToken(label = 'paywire-test', pin = '246810'): SoftHsmToken {
  const dir = mkdtempSync(path.join(tmpdir(), 'paywire-softhsm-'));
  mkdirSync(path.join(dir, 'tokens'));
  const conf = path.join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    `directories.tokendir = ${dir}/tokens\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '13579'],
    {
      stdio: 'ignore',
      env: { ...process.env, SOFTHSM2_CONF: conf },
    },
  );
  return { module: softHsmModule, tokenLabel: label, pin, conf };
}
