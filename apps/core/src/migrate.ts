import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';
import { migrate, openDatabase } from './db/orm.ts';

/**
 * `npm run migrate` (the image's migrate command): applies the committed migrations and pg-boss's schema
 * once, then exits. It holds an advisory lock, so runs started together apply in turn; cores never migrate.
 */
const { DATABASE_URL } = parseEnvironment(
  z.object({ DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL') }),
  process.env,
  'migrate',
);
const orm = await openDatabase(DATABASE_URL, 2);
try {
  const applied = await migrate(orm, DATABASE_URL);
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', service: 'migrate', message: 'database current', applied })}\n`,
  );
} finally {
  await orm.close();
}
