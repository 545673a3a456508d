import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, startEmbeddedPostgres } from '../../infra/postgres.ts';
import { client, expectStatus, saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Database secrets (issue 12): the embedded PostgreSQL's superuser gets a random password at first
// initialisation, kept beside the data directory for the owner only and read again by later starts; and no
// statement text carries a secret, card data or IBAN. The second is checked on a server of this file's own
// that logs every statement (log_statement=all, parameter values off as the README advises), while the
// flows that write a password hash, a sealed IBAN and a sealed card run over HTTP.
// ---------------------------------------------------------------------------------------------------------

const IBAN = 'DE89370400440532013000';

let directory: string;
let dataDir: string;
let port: number;
let server: PostgresServer;
const statements: string[] = [];

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'paywire-secrets-pg-'));
  chmodSync(directory, 0o755); // run as root, PostgreSQL runs as its own OS user and must reach its data dir
  dataDir = path.join(directory, 'data');
  port = await freePort();
  server = await startEmbeddedPostgres({
    dataDir,
    port,
    durable: false,
    logStatements: (line) => statements.push(line),
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

async function canConnect(url: string): Promise<true | string> {
  const connection = new pg.Client({ connectionString: url });
  try {
    await connection.connect();
    await connection.query('select 1');
    return true;
  } catch (error) {
    return String((error as { code?: string }).code);
  } finally {
    await connection.end().catch(() => {});
  }
}

describe('the embedded superuser', () => {
  it('has a random password, kept beside the data directory for its owner only', async () => {
    const file = `${dataDir}.password`;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new URL(server.adminUrl).password).toBe(password);
    expect(await canConnect(server.adminUrl)).toBe(true);
    // The former fixed password is refused (28P01: password authentication failed).
    expect(await canConnect(`postgresql://postgres:postgres@127.0.0.1:${port}/postgres`)).toBe('28P01');
  });

  it('is read again by a start that reuses the running server', async () => {
    const again = await startEmbeddedPostgres({ dataDir, port, durable: false, reuseRunning: true });
    expect(again.adminUrl).toBe(server.adminUrl);
    expect(await canConnect(again.adminUrl)).toBe(true);
  });
});

describe('statement texts', () => {
  let stack: Stack;

  afterAll(async () => {
    await stack?.close();
    if (!stack) return;
    // Closed pools end their connections in the background; the server stops only once they are gone.
    const database = new URL(stack.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await waitFor('the stack to let go of its connections', async () => {
      const { rows } = await admin.query(
        'select count(*)::int as n from pg_stat_activity where datname = $1',
        [database],
      );
      return rows[0]?.n === 0;
    });
    await admin.end();
  });

  it('carry no password hash, IBAN, sealed IBAN, card number or CVV while those flows run', async () => {
    stack = await startStack({ postgresAdminUrl: server.adminUrl });
    const api = client(stack);
    const merchant = await stack.newMerchant(); // the password hash is written
    const debit = await api.post(
      '/alt-transactions',
      {
        sepaDirectDebitTransaction: { iban: IBAN },
        payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
        amount: 10.5,
        currency: 'EUR',
        authorizedByShopper: true,
      },
      { merchant },
    );
    expectStatus(debit, 200);
    const { creditCard } = saleBody();
    const shopper = await api.post(
      '/vaulted-shoppers',
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        paymentSources: { creditCardInfo: [{ creditCard }] },
      },
      { merchant },
    );
    expectStatus(shopper, 200);
    expectStatus(await api.post('/transactions', saleBody(), { merchant }), 200);
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT1M' }, { merchant }), 200);

    const { rows } = await stack.db.query<{
      password_hash: string;
      sealed_iban: string;
      sealed_number: string;
    }>(
      `select m.password_hash, ma.sealed_iban, c.sealed_number
       from merchant m join sepa_mandate ma on ma.merchant_id = m.id join stored_card c on c.merchant_id = m.id
       where m.id = $1`,
      [merchant.id],
    );
    const [stored] = rows;
    if (!stored) throw new Error('the flows wrote no mandate or card');
    // not vacuous: the server logged the statements that wrote them
    const logged = await waitFor('the statements to be logged', () => {
      const text = statements.join('');
      return (
        ['insert into merchant', 'insert into sepa_mandate', 'insert into stored_card'].every((part) =>
          text.toLowerCase().includes(part),
        ) && text
      );
    });
    // The vaulted card is written by a parameterized statement (shoppers/queries.ts), ciphertext included.
    const secrets = {
      'password hash': stored.password_hash.split('$').at(-1) ?? stored.password_hash,
      IBAN,
      'sealed IBAN': stored.sealed_iban.slice(3, 40),
      'sealed card number': stored.sealed_number.slice(3, 40),
      'card number': creditCard.cardNumber,
      CVV: `'${creditCard.securityCode}'`,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(logged.includes(secret), `${name} in a statement's text`).toBe(false);
    }
  });
});

describe('a cluster from before random passwords', () => {
  it('gets a random password on its next start, through the former fixed one', async () => {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query("alter role postgres password 'postgres'");
    await admin.end();
    await server.stop();
    rmSync(`${dataDir}.password`);

    server = await startEmbeddedPostgres({ dataDir, port, durable: false });
    const password = readFileSync(`${dataDir}.password`, 'utf8').trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(`${dataDir}.password`).mode & 0o777).toBe(0o600);
    expect(await canConnect(server.adminUrl)).toBe(true);
    expect(await canConnect(`postgresql://postgres:postgres@127.0.0.1:${port}/postgres`)).toBe('28P01');
  });
});
