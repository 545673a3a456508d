import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';

/** The facade's configuration: the only place the facade reads the environment. */
const schema = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  CORE_URL: z.url().default('http://127.0.0.1:8081/trpc'),
  XML_NAMESPACE: z.string().default('http://ws.plimus.com'),
  /** How long a verified credential is trusted before core checks it again. */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** Proxies in front of the facade appending to X-Forwarded-For; the client address for login limits. */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

export type FacadeEnv = z.output<typeof schema>;

export function loadFacadeEnv(source: NodeJS.ProcessEnv = process.env): FacadeEnv {
  return parseEnvironment(schema, source, 'facade');
}
