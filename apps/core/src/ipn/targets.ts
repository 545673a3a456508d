import { type LookupAddress, lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Loopback, private, link-local and other non-public ranges an IPN must not reach in live mode. */
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

function isNonPublic(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return nonPublic.check(mapped, 'ipv4');
  return nonPublic.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Why a literal IP target may not be called, or undefined (names are checked as they resolve: guardedLookup). */
export function refusedAddress(url: string, allowPrivate: boolean): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || !isIP(host) || !isNonPublic(host)) return undefined;
  return `${host} is a private or loopback address`;
}

/**
 * DNS lookup for outgoing IPN connections that refuses non-public answers at connect time, so a name that
 * resolves differently on a second lookup (DNS rebinding) cannot slip past an earlier check.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = !allowPrivate && addresses.some((entry) => isNonPublic(entry.address));
      if (refused)
        return callback(
          Object.assign(new Error(`${hostname} resolves to a private or loopback address`), {
            code: 'EPRIVATETARGET',
          }),
          '',
          0,
        );
      const [first] = addresses;
      if (options.all)
        return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
      return callback(null, first?.address ?? '', first?.family ?? 4);
    });
  };
}
