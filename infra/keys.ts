import { parseArgs } from 'node:util';
import type { PaywireClient, RouterOutputs } from '@paywire/client';
import { createPkcs11Kek, loadKeyEnv } from '@paywire/core';
import { withAdminClient } from './admin.ts';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * npm run keys -- status|rotate|create-kek: the data keys and their key-encryption key (docs/keys.md). Status
 * and rotations go through core's admin procedures (PAYWIRE_ADMIN_CREDENTIAL at CORE_URL); create-kek works on
 * the HSM token alone.
 */
const usage = `usage:
  npm run keys -- status [--json] [--watch]                                    (PAYWIRE_ADMIN_CREDENTIAL, CORE_URL)
  npm run keys -- rotate [--fingerprint] [--activate-after <seconds, default 3 x core's KEY_REFRESH_SECONDS>]
  npm run keys -- create-kek            (KEY_PROVIDER=pkcs11: makes PKCS11_KEY_LABEL on the token)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    watch: { type: 'boolean', default: false },
    fingerprint: { type: 'boolean', default: false },
    'activate-after': { type: 'string' },
  },
});

const say = (line: string) => process.stdout.write(`${line}\n`);
function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

const command = positionals[0];
if (!command || !['status', 'rotate', 'create-kek'].includes(command))
  fail(`unknown command ${command ?? ''}`);
const env = loadLauncherEnv();

if (command === 'create-kek') {
  const keyEnv = loadKeyEnv(process.env);
  if (keyEnv.KEY_PROVIDER !== 'pkcs11') fail('create-kek is for KEY_PROVIDER=pkcs11');
  try {
    await createPkcs11Kek({
      module: keyEnv.PKCS11_MODULE ?? '',
      tokenLabel: keyEnv.PKCS11_TOKEN_LABEL ?? '',
      pin: keyEnv.PKCS11_PIN ?? '',
      keyLabel: keyEnv.PKCS11_KEY_LABEL,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  say(`made the key-encryption key "${keyEnv.PKCS11_KEY_LABEL}" on token "${keyEnv.PKCS11_TOKEN_LABEL}"`);
  process.exit(0);
}

const activateAfter = values['activate-after'] === undefined ? undefined : Number(values['activate-after']);
if (activateAfter !== undefined && (!Number.isInteger(activateAfter) || activateAfter < 0))
  fail('--activate-after: a whole number of seconds');

type Status = RouterOutputs['keys']['status'];

function print(status: Status): void {
  if (values.json) {
    say(JSON.stringify({ at: new Date().toISOString(), ...status }));
    return;
  }
  say('id\tpurpose\tstate\treferences\tkek\tcheck\tactivates\tretired');
  for (const key of status.keys)
    say(
      [
        key.id,
        key.legacy ? `${key.purpose} (v1)` : key.purpose,
        key.state,
        key.references,
        key.kekId,
        key.checkValue,
        key.activatesAt,
        key.retiredAt ?? '-',
      ].join('\t'),
    );
  for (const rotation of status.rotations)
    say(
      `rotation to key ${rotation.keyId}\t${rotation.table}\t${rotation.rowsReencrypted} re-encrypted\t${rotation.finishedAt ? `finished ${rotation.finishedAt}` : 'in progress'}`,
    );
}

/** Old keys' references left: what a watch counts down to zero. */
const leftOver = (status: Status) =>
  status.keys
    .filter((key) => key.state === 'opening' || key.state === 'matching')
    .reduce((sum, key) => sum + key.references, 0);

function bar(status: Status, total: number): void {
  const left = leftOver(status);
  const done = total === 0 ? 1 : (total - left) / total;
  const width = 40;
  const filled = Math.round(done * width);
  process.stdout.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(done * 100)}% ${left} values under old keys`,
  );
}

await withAdminClient(env, async (core: PaywireClient) => {
  if (command === 'rotate') {
    const rotated = await core.keys.rotate.mutate({
      purpose: values.fingerprint ? 'fingerprint' : 'encryption',
      ...(activateAfter === undefined ? {} : { activateAfterSeconds: activateAfter }),
    });
    const after = rotated.activateAfterSeconds;
    say(
      rotated.purpose === 'fingerprint'
        ? `fingerprint key ${rotated.keyId} made; new fingerprints use it from ${after} s from now, then the workers re-fingerprint`
        : `data key ${rotated.keyId} made; it seals from ${after} s from now, then the workers re-encrypt`,
    );
    return;
  }
  let status = await core.keys.status.query();
  if (!values.watch) return print(status);
  // A bar on a terminal, one structured line per poll otherwise, until no value is under an old key.
  const tty = process.stdout.isTTY && !values.json;
  const total = Math.max(leftOver(status), 1);
  for (;;) {
    if (tty) bar(status, total);
    else print(status);
    if (leftOver(status) === 0 && !status.keys.some((key) => key.state === 'pending')) break;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    status = await core.keys.status.query();
  }
  if (tty) process.stdout.write('\n');
});
