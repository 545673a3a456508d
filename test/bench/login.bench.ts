import { randomBytes } from 'node:crypto';
import { openDatabase, operatorOrigin, upsertMerchant } from '@paywire/core';
import { startBenchDatabase } from './bench-database.ts';
import { benchProcesses } from './processes.ts';

/**
 * Real merchants' first logins (each a password hash in core) while password guesses arrive: quiet, then
 * under 50 guesses a second from 250 addresses, so the per-address limit does not
 * stop them and every guess asks for a hash. Facade and core as two processes, as npm start runs them.
 * Usage: npm run bench:login
 */
const guessesPerSecond = 50;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const logins = 10;
const ports = { core: 18181, facade: 18180 };
const url = `http://127.0.0.1:${ports.facade}/services/2/sandbox/clock`;

const database = await startBenchDatabase('login-bench');
const { start, stop } = benchProcesses();

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

async function login(authorization: string, from: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const reply = await fetch(url, { headers: { authorization, 'x-forwarded-for': from } });
  await reply.arrayBuffer();
  return { status: reply.status, ms: performance.now() - started };
}

/** First logins of these merchants, each from its own address, one every 500 ms; their times in ms. */
async function firstLogins(credentials: string[], network: string): Promise<number[]> {
  const times: number[] = [];
  for (const [index, authorization] of credentials.entries()) {
    const { status, ms } = await login(authorization, `${network}.${index + 1}`);
    if (status !== 200) throw new Error(`a real login was answered ${status}`);
    times.push(ms);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return times;
}

const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return `p50 ${at(0.5)} ms, max ${at(1)} ms (${sorted.map(Math.round).join(', ')})`;
};

try {
  const orm = await openDatabase(database.databaseUrl, 2);
  const credentials: string[] = [];
  for (let index = 0; index < 2 * logins; index++) {
    const username = `merchant_${index}`;
    const password = randomBytes(12).toString('base64url');
    await upsertMerchant(orm.em.fork(), username, password, operatorOrigin('bench'));
    credentials.push(basic(username, password));
  }
  await orm.close();
  await start('apps/core/src/main.ts', [], {
    DATABASE_URL: database.databaseUrl,
    CORE_PORT: String(ports.core),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  await start('apps/facade/src/main.ts', [], {
    PORT: String(ports.facade),
    HOST: '127.0.0.1',
    CORE_URL: `http://127.0.0.1:${ports.core}/trpc`,
    LOG_REQUESTS: 'false',
    TRUSTED_PROXY_HOPS: '1',
  });

  const quiet = await firstLogins(credentials.slice(0, logins), '192.0.2');

  const answers = new Map<number, number>();
  const guesses: Promise<void>[] = [];
  const until = performance.now() + seconds * 1000;
  const attack = (async () => {
    for (let guess = 0; performance.now() < until; guess++) {
      const authorization = basic(`bot_${randomBytes(4).toString('hex')}`, `guess-${guess}`);
      guesses.push(
        login(authorization, `100.64.${guess % 250}.1`).then(({ status }) => {
          answers.set(status, (answers.get(status) ?? 0) + 1);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000 / guessesPerSecond));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the queue fills first
  const underAttack = await firstLogins(credentials.slice(logins), '198.51.100');
  await attack;
  await Promise.all(guesses);

  process.stdout.write(
    [
      `Real merchants' first logins, facade and core as two processes, ${new Date().toISOString()}`,
      `quiet: ${summary(quiet)}`,
      `during ${guessesPerSecond} guesses/s from 250 addresses: ${summary(underAttack)}`,
      `guesses answered by status: ${JSON.stringify(Object.fromEntries(answers))}`,
      '',
    ].join('\n'),
  );
} finally {
  await stop();
  await database.stop();
}
