import { BlockList, isIPv6 } from 'node:net';

/** Where a shopper's IP address is: an ISO 3166 alpha-2 country, or undefined when no range places it. */
export type IpCountryLocator = (address: string) => string | undefined;

/**
 * The sandbox's documented addresses (docs/fraud.md): the documentation ranges of RFC 5737 and RFC 3849, which
 * never carry real traffic, so they are placed in every mode.
 */
const documentationRanges = `192.0.2.0/24,US
198.51.100.0/24,GB
203.0.113.0/24,DE
2001:db8::/32,FR`;

/**
 * Ranges as `CIDR,country` lines (a country database exported to CSV; blank lines and # comments skipped),
 * with the documentation ranges added. Throws on a line it cannot read, so a bad file stops core at start.
 */
export function ipCountryLocator(ranges = ''): IpCountryLocator {
  const byCountry = new Map<string, BlockList>();
  for (const [index, raw] of `${documentationRanges}\n${ranges}`.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^([0-9a-fA-F:.]+)\/(\d{1,3})\s*,\s*([A-Za-z]{2})$/.exec(line);
    if (!match) throw new Error(`IP country ranges, line ${index - 3}: expected CIDR,country`);
    const [, network, prefix, country] = match as unknown as [string, string, string, string];
    const code = country.toUpperCase();
    const list = byCountry.get(code) ?? new BlockList();
    list.addSubnet(network, Number(prefix), isIPv6(network) ? 'ipv6' : 'ipv4');
    byCountry.set(code, list);
  }
  return (address) => {
    const family = isIPv6(address) ? 'ipv6' : 'ipv4';
    for (const [country, list] of byCountry) if (list.check(address, family)) return country;
    return undefined;
  };
}

declare module '../context.ts' {
  interface CoreServices {
    /** The country of a shopper's IP address, for the fraud rules (fraud/ip-country.ts). */
    ipCountry: IpCountryLocator;
  }
}
