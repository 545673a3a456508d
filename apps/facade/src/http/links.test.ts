import { describe, expect, it } from 'vitest';
import { listenAddressUrl } from './links.ts';

describe('listenAddressUrl, the sandbox base URL when PUBLIC_BASE_URL is unset', () => {
  it('names localhost for a wildcard listener, else the bound address', () => {
    expect(listenAddressUrl('0.0.0.0', 8080)).toBe('http://localhost:8080');
    expect(listenAddressUrl('::', 8080)).toBe('http://localhost:8080');
    expect(listenAddressUrl('127.0.0.1', 41234)).toBe('http://127.0.0.1:41234');
    expect(listenAddressUrl('::1', 41234)).toBe('http://[::1]:41234');
    expect(listenAddressUrl('10.1.2.3', 80)).toBe('http://10.1.2.3:80');
  });
});
