import { parseEnvironment } from '@paywire/contracts';
import { z } from 'zod';

/** The facade's configuration: the only place the facade reads the environment. */
const schema = z
  .object({
    PAYWIRE_MODE: z.enum(['sandbox', 'live']).default('sandbox'),
    /**
     * Where clients reach the service (scheme, host, optional port and path prefix): the base of Location and
     * every other link. Required in live mode; in sandbox mode unset means the listen address.
     */
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .refine((value) => {
        const url = URL.parse(value);
        return (
          url !== null && url.search === '' && url.hash === '' && url.username === '' && url.password === ''
        );
      }, 'must be scheme://host[:port][/path] with no query, fragment or credentials')
      .transform((value) => value.replace(/\/+$/, ''))
      .optional(),
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
    /** Proxies in front of the facade appending to X-Forwarded-For; the client address for login limits. */
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /** SIGTERM: how long in-flight requests may take before the process exits. */
    SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
    /** SIGTERM: seconds /readyz fails while the listener still accepts, for load balancers that poll it. */
    SHUTDOWN_DELAY_SECONDS: z.coerce.number().int().min(0).max(600).default(0),
    /** Prometheus metrics at http://HOST:METRICS_PORT/metrics; unset: none served. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    LOG_REQUESTS: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true'),
  })
  .refine((env) => env.PAYWIRE_MODE === 'sandbox' || env.PUBLIC_BASE_URL?.startsWith('https://'), {
    path: ['PUBLIC_BASE_URL'],
    message: 'live mode needs PUBLIC_BASE_URL, an https:// URL (links are never built from the Host header)',
  });

export type FacadeEnv = z.output<typeof schema>;

export function loadFacadeEnv(source: NodeJS.ProcessEnv = process.env): FacadeEnv {
  return parseEnvironment(schema, source, 'facade');
}
