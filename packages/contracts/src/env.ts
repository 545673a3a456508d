import type { z } from 'zod';

/** Parses a process environment against an app's schema; one readable error naming every problem. */
export function parseEnvironment<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined>,
  app: string,
): z.output<S> {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new Error(`invalid ${app} configuration: ${problems}`);
}
