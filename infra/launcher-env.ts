import { minimumPasswordLength } from '@paywire/contracts';
import { z } from 'zod';

/** What `npm start` and the operator CLIs (merchant, caller, processor, keys) read from the environment. */
const schema = z.object({
  DATABASE_URL: z.string().optional(),
  /** npm start with DATABASE_URL: core's own connection, as an app role the migration grants (docs/security.md). */
  DATABASE_APP_URL: z.string().optional(),
  /** npm start's setup (prepare.ts), from the launcher: the app role its migration grants. */
  DATABASE_APP_ROLE: z.string().optional(),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().default(54330),
  PAYWIRE_DATA_DIR: z.string().default('.data'),
  PAYWIRE_MODE: z.enum(['sandbox', 'live']).default('sandbox'),
  PORT: z.coerce.number().int().default(8080),
  CORE_PORT: z.coerce.number().int().default(8081),
  CARD_ENCRYPTION_KEY: z.string().optional(),
  /** npm start: core's key-encryption key on a SoftHSM2 token in the data directory (docs/keys.md). */
  PAYWIRE_SOFTHSM: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** The operator CLIs (caller, processor, keys rotate, wallet-keys): core's tRPC endpoint... */
  CORE_URL: z.url().default('http://127.0.0.1:8081/trpc'),
  /** ...and the operator's admin credential for it (`npm run caller -- bootstrap` issues the first). */
  PAYWIRE_ADMIN_CREDENTIAL: z.string().optional(),
  /** npm run processor -- add: the account's credentials as JSON, instead of a file. */
  PROCESSOR_CREDENTIALS: z.string().optional(),
  SANDBOX_API_USERNAME: z.string().min(1).default('sandbox'),
  SANDBOX_API_PASSWORD: z.string().min(minimumPasswordLength).default('sandbox-password'),
});

export type LauncherEnv = z.output<typeof schema>;
export const loadLauncherEnv = (): LauncherEnv => schema.parse(process.env);
