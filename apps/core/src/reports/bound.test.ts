import { describe, expect, it } from 'vitest';
import { bound } from './bound.ts';

describe('bound', () => {
  it('numbers named parameters by first use, reusing a number for a repeated name', () => {
    const { text, params } = bound('select :b::text, :a, :b where x::int = :a', { a: 1, b: 'two', c: 3 });
    expect(text).toBe('select $1::text, $2, $1 where x::int = $2');
    expect(params).toEqual(['two', 1]);
  });

  it('leaves string literals alone', () => {
    expect(bound("select to_char(:at, 'HH24:MI:SS'), 'it''s :not'", { at: 1 }).text).toBe(
      "select to_char($1, 'HH24:MI:SS'), 'it''s :not'",
    );
  });

  it('refuses a name it has no value for', () => {
    expect(() => bound('select :missing', {})).toThrow(/:missing/);
  });
});
