import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

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
  ['198.18.0.0', 15],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

function isNonPublic(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return nonPublic.check(mapped, 'ipv4');
  return nonPublic.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Why a URL may not be called, or undefined when it may: every address its host resolves to is checked. */
export async function refusedTarget(url: string, allowPrivate: boolean): Promise<string | undefined> {
  if (allowPrivate) return undefined;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  return addresses.some(isNonPublic) ? `${host} resolves to a private or loopback address` : undefined;
}
