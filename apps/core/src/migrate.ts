import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';
import { openDatabase } from './database.ts';
import { migrate } from './db/orm.ts';

/**
 * `npm run migrate` (the image's migrate command): applies the committed migrations and pg-boss's schema
 * once, then exits. It holds an advisory lock, so runs started together apply in turn; cores never migrate.
 * It connects as the schema's owner; DATABASE_APP_ROLE names core's app role, which it then grants what core
 * needs and no more (docs/security.md, Database roles).
 */
const { DATABASE_URL, DATABASE_APP_ROLE } = parseEnvironment(
  z.object({
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    DATABASE_APP_ROLE: z.string().min(1).max(63).optional(),
  }),
  process.env,
  'migrate',
);
const orm = await openDatabase(DATABASE_URL, 2);
try {
  const applied = await migrate(orm, DATABASE_URL, { appRole: DATABASE_APP_ROLE });
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', service: 'migrate', message: 'database current', applied })}\n`,
  );
} finally {
  await orm.close();
}
