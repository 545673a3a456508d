import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';

/** The report's configuration: the only place it reads the environment. */
const schema = z.object({
  CORE_URL: z.url().default('http://127.0.0.1:8081/trpc'),
  /** A credential bound to the merchant to report on: read-only is enough (`npm run caller -- issue ...`). */
  CORE_CREDENTIAL: z.string().min(1, 'is required: a caller credential (pwc_...) bound to one merchant'),
});

export function loadReportEnv(source: NodeJS.ProcessEnv = process.env) {
  return parseEnvironment(schema, source, 'settlement-report');
}
