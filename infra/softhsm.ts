import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const softHsmModule = '/usr/lib/softhsm/libsofthsm2.so';
const tokenLabel = 'paywire';

/**
 * `PAYWIRE_SOFTHSM=true npm start`: core's key-encryption key on a SoftHSM2 token kept in the data directory
 * (made on first use: the token, its PIN in an owner-only file, and the key through `npm run keys --
 * create-kek`). For trying the pkcs11 provider, not for live use: the PIN sits beside the token. Returns the
 * environment that points core at it (docs/keys.md).
 */
export async function softHsmEnvironment(dataDir: string): Promise<Record<string, string>> {
  if (!existsSync(softHsmModule))
    throw new Error('PAYWIRE_SOFTHSM=true needs SoftHSM2: apt-get install -y softhsm2');
  const dir = path.resolve(dataDir, 'softhsm');
  const tokens = path.join(dir, 'tokens');
  mkdirSync(tokens, { recursive: true, mode: 0o700 });
  const conf = path.join(dir, 'softhsm2.conf');
  if (!existsSync(conf))
    writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const pinFile = path.join(dir, 'pin');
  if (!existsSync(pinFile)) writeFileSync(pinFile, randomBytes(12).toString('hex'), { mode: 0o600 });
  const pin = readFileSync(pinFile, 'utf8').trim();
  const environment = {
    KEY_PROVIDER: 'pkcs11',
    PKCS11_MODULE: softHsmModule,
    PKCS11_TOKEN_LABEL: tokenLabel,
    PKCS11_PIN: pin,
    SOFTHSM2_CONF: conf,
  };
  if (readdirSync(tokens).length === 0) {
    const so = randomBytes(12).toString('hex');
    await run(
      'softhsm2-util',
      ['--init-token', '--free', '--label', tokenLabel, '--pin', pin, '--so-pin', so],
      {
        env: { ...process.env, SOFTHSM2_CONF: conf },
      },
    );
    await run(process.execPath, [fileURLToPath(new URL('./keys.ts', import.meta.url)), 'create-kek'], {
      env: { ...process.env, ...environment },
    });
  }
  return environment;
}
