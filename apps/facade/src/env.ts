import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';

/** The facade's configuration: the only place the facade reads the environment. */
const schema = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  CORE_URL: z.url().default('http://127.0.0.1:8081/trpc'),
  /** The facade's caller credential (any-merchant scope), issued with `npm run caller -- issue`. */
  CORE_CREDENTIAL: z
    .string()
    .regex(/^pwc_\d+_[A-Za-z0-9_-]{43}$/, 'must be a caller credential (pwc_<id>_<secret>)'),
  XML_NAMESPACE: z.string().default('http://ws.plimus.com'),
  /** How long a verified credential is trusted before core checks it again. */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

export type FacadeEnv = z.output<typeof schema>;

export function loadFacadeEnv(source: NodeJS.ProcessEnv = process.env): FacadeEnv {
  return parseEnvironment(schema, source, 'facade');
}
