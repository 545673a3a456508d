import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.ts';

describe('merchant passwords', () => {
  it('stores a salted scrypt hash, never the password', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(first).not.toContain('correct horse');
    expect(first).not.toBe(second);
  });

  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyPassword('correct horse', 'plain-text')).toBe(false);
  });
});
