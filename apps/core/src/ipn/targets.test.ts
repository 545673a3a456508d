import { describe, expect, it } from 'vitest';
import { guardedLookup, refusedAddress } from './targets.ts';

describe('IPN targets', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '[fc00::1]',
    '[fe80::1]',
    '[fec0::1]',
  ])('refuses %s in live mode', (host) => {
    expect(refusedAddress(`http://${host}/ipn`, false)).toMatch(/private or loopback/);
  });

  it('lets public addresses and names through the literal check, and everything when allowed', () => {
    expect(refusedAddress('https://93.184.216.34/ipn', false)).toBeUndefined();
    expect(refusedAddress('https://[2606:2800:220:1::]/ipn', false)).toBeUndefined();
    expect(refusedAddress('https://merchant.example/ipn', false)).toBeUndefined(); // names: checked as they resolve
    expect(refusedAddress('http://127.0.0.1/ipn', true)).toBeUndefined();
  });

  it('refuses a name that resolves to loopback when the connection is made', async () => {
    const resolve = (allow: boolean) =>
      new Promise<string>((done) =>
        guardedLookup(allow)('localhost', { all: false }, (error, address) =>
          done(error ? (error as Error).message : String(address)),
        ),
      );
    expect(await resolve(false)).toMatch(/private or loopback/);
    expect(await resolve(true)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
