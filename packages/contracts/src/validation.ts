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
