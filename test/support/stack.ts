import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type RunningCore, startCore } from '@paywire/core';
import { createCoreClient, createFacade, createLogger } from '@paywire/facade';
import { inject } from 'vitest';
import { migrateDatabase } from '../../infra/database.ts';
import { saveMerchant } from '../../infra/merchants.ts';
import { serverAt } from '../../infra/postgres.ts';

export interface TestMerchant {
  id: number;
  username: string;
  password: string;
  authorization: string;
}

export interface Stack {
  /** e.g. http://127.0.0.1:41234/services/2 */
  baseUrl: string;
  databaseUrl: string;
  core: RunningCore;
  merchant: TestMerchant;
  newMerchant(): Promise<TestMerchant>;
  /** Every line the facade and core logged during the file's tests. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The whole service for one test file: its own database on the run's PostgreSQL, migrated; core and
 * facade in this process but on real HTTP ports, talking over real tRPC; one merchant ready.
 */
export async function startStack(options: { mode?: 'sandbox' | 'live' } = {}): Promise<Stack> {
  const server = serverAt(inject('postgresAdminUrl'));
  const name = `paywire_${randomBytes(6).toString('hex')}`;
  await server.ensureDatabase(name);
  const databaseUrl = server.databaseUrl(name);
  await migrateDatabase(databaseUrl);

  const logs: string[] = [];
  const core = await startCore({
    databaseUrl,
    port: 0,
    mode: options.mode ?? 'sandbox',
    cardEncryptionKey: randomBytes(32),
    poolSize: 8,
    ipnRetryDelaySeconds: 1,
    logError: (message, fields) => logs.push(JSON.stringify({ message, ...fields })),
  });
  const facade = createFacade({
    core: createCoreClient(core.url),
    log: createLogger('facade', (line) => logs.push(line)),
    xmlNamespace: 'http://ws.plimus.com',
    authCacheSeconds: 60,
    logRequests: true,
  });
  const http = facade.listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  const { port } = http.address() as AddressInfo;

  const newMerchant = async (): Promise<TestMerchant> => {
    const username = `merchant_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('base64url');
    const id = await saveMerchant(databaseUrl, username, password);
    return {
      id,
      username,
      password,
      authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    };
  };

  return {
    baseUrl: `http://127.0.0.1:${port}/services/2`,
    databaseUrl,
    core,
    merchant: await newMerchant(),
    newMerchant,
    logs,
    async close() {
      await new Promise((resolve) => {
        http.close(resolve);
        http.closeAllConnections();
      });
      await core.close();
    },
  };
}
