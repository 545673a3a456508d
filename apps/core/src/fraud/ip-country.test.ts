import { describe, expect, it } from 'vitest';
import { ipCountryLocator } from './ip-country.ts';

describe('ipCountryLocator', () => {
  it('places the sandbox documentation ranges with no file', () => {
    const locate = ipCountryLocator();
    expect(locate('192.0.2.200')).toBe('US');
    expect(locate('198.51.100.1')).toBe('GB');
    expect(locate('2001:db8::1')).toBe('FR');
    expect(locate('8.8.8.8')).toBeUndefined();
  });

  it('adds a file’s ranges, skipping blank lines and comments', () => {
    const locate = ipCountryLocator('# exported\n\n81.2.69.0/24,gb\n2a02:c7f::/32 , DE\n');
    expect(locate('81.2.69.160')).toBe('GB');
    expect(locate('2a02:c7f:1::9')).toBe('DE');
    expect(locate('81.2.70.1')).toBeUndefined();
  });

  it('refuses a line it cannot read, naming the file’s line', () => {
    expect(() => ipCountryLocator('81.2.69.0/24,GB\n81.2.69.0,GB')).toThrow('line 2');
  });
});
