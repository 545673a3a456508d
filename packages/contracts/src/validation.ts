import type { z } from 'zod';
import { sensitiveProperties } from './card-input.ts';
import { type ErrorMessage, errorMessage, isErrorName } from './errors.ts';

/** Invalid input, with one public message per problem found. */
export class ValidationFailure extends Error {
  readonly messages: ErrorMessage[];

  constructor(messages: ErrorMessage[]) {
    super(messages.map((m) => m.description).join('; '));
    this.name = 'ValidationFailure';
    this.messages = messages;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describe(issue: z.core.$ZodIssue, value: unknown): string {
  if (value === undefined && issue.code !== 'custom') return 'is required';
  if (issue.code === 'invalid_type')
    return `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
  if (issue.code === 'invalid_union') return 'has the wrong type';
  return issue.message.replace(/^Invalid input: /, '');
}

/** Public messages for zod issues. Values of card data properties are never echoed back. */
export function issuesToMessages(issues: readonly z.core.$ZodIssue[], input: unknown): ErrorMessage[] {
  return issues.map((issue) => {
    const name = issue.path.map(String).join('.') || 'body';
    const value = valueAt(input, issue.path);
    const errorName =
      issue.code === 'custom' && isErrorName(issue.params?.errorName)
        ? issue.params.errorName
        : 'VALIDATION_GENERAL_FAILURE';
    const echo =
      ['string', 'number', 'boolean'].includes(typeof value) &&
      !issue.path.some((segment) => sensitiveProperties.has(String(segment))) &&
      !/\d{12}/.test(String(value)); // a card number in the wrong place is still a card number
    return errorMessage(errorName, `${name}: ${describe(issue, value)}`, {
      name,
      ...(echo ? { messageValue: String(value).slice(0, 100) } : {}),
    });
  });
}

/** Parses input against a contract, throwing ValidationFailure with every problem found. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationFailure(issuesToMessages(result.error.issues, input));
}

/** Nesting deeper than any resource of the interface (the XML reader's limit too). */
export const MAX_INPUT_DEPTH = 32;

function unsafeTextProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (!text.isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/**
 * Refuses, naming the property, input that no store or format could hold: a NUL or an unpaired
 * surrogate in any string or property name (PostgreSQL refuses both in text and JSON), or nesting deeper
 * than MAX_INPUT_DEPTH. Walks without recursion, so no input depth can exhaust the stack.
 */
export function assertSafeInput(input: unknown, rootName = 'body'): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: input, path: '', depth: 0 }];
  const fail = (path: string, problem: string): never => {
    const name = (path || rootName).slice(0, 200);
    throw new ValidationFailure([
      errorMessage('VALIDATION_GENERAL_FAILURE', `${name}: ${problem}`, { name }),
    ]);
  };
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value, path, depth } = item;
    if (typeof value === 'string') {
      const problem = unsafeTextProblem(value);
      if (problem) fail(path, problem);
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_INPUT_DEPTH) fail(path, `is nested deeper than ${MAX_INPUT_DEPTH} levels`);
      for (const [key, child] of Object.entries(value)) {
        const problem = unsafeTextProblem(key);
        if (problem) fail(path, `has a property name that ${problem}`);
        pending.push({ value: child, path: path === '' ? key : `${path}.${key}`, depth: depth + 1 });
      }
    }
  }
}
