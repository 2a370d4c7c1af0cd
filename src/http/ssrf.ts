/**
 * Server-side request forgery guard for outbound fetches (CIMD documents). Only globally routable
 * unicast addresses pass; the caller connects to exactly the address that was checked, so a
 * second DNS answer cannot swap in a private one (DNS rebinding).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blocked = new BlockList();
// IPv4 special-purpose registry (RFC 6890 and successors): nothing here is a public web host.
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // RFC 6598 carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}

// IPv6: only global unicast 2000::/3 can pass, minus the ranges that tunnel or document.
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
for (const [net, prefix] of [
  ['2001::', 32], // Teredo: embeds an IPv4 address
  ['2001:db8::', 32], // documentation
  ['2001:10::', 28], // ORCHID
  ['2002::', 16], // 6to4: embeds an IPv4 address
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:xxxx:xxxx). */
function unmapIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = Number.parseInt(hex[1], 16);
  const lo = Number.parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * True only for a publicly routable unicast address: never private, loopback, link-local,
 * unique-local, CGNAT, multicast, unspecified or documentation space, in IPv4 or IPv6
 * (IPv4-mapped IPv6 is judged by its IPv4 address).
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, 'ipv4');
  if (family !== 6) return false;
  const mapped = unmapIpv4(bare);
  if (mapped !== undefined) return isIP(mapped) === 4 && !blocked.check(mapped, 'ipv4');
  return globalUnicast.check(bare, 'ipv6') && !blocked.check(bare, 'ipv6');
}

/** An address to connect to, as the resolver returned it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Refusal raised when a host resolves to a forbidden address or not at all. */
export class SsrfError extends Error {
  override name = 'SsrfError';
  readonly reason: 'blocked_address' | 'dns_failure';
  constructor(reason: 'blocked_address' | 'dns_failure', message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Resolves with the system resolver (every A and AAAA answer). */
async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/**
 * Resolves a hostname (or takes an IP literal) and returns the address to connect to. Every
 * answer must be public, so a host cannot hide one private address among public ones.
 * `allowAddress` exempts one exact address; only tests set it.
 */
export async function resolvePublicAddress(
  hostname: string,
  options: { resolve?: (hostname: string) => Promise<ResolvedAddress[]>; allowAddress?: string } = {},
): Promise<ResolvedAddress> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(bare);
  let answers: ResolvedAddress[];
  if (literal) {
    answers = [{ address: bare, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      answers = await (options.resolve ?? systemResolve)(bare);
    } catch {
      throw new SsrfError('dns_failure', `${bare} did not resolve`);
    }
  }
  if (answers.length === 0) throw new SsrfError('dns_failure', `${bare} did not resolve`);
  for (const a of answers) {
    if (a.address !== options.allowAddress && !isPublicAddress(a.address)) {
      throw new SsrfError('blocked_address', `${bare} resolves to a non-public address (${a.address})`);
    }
  }
  return answers[0];
}

/**
 * A `lookup` for `http(s).request` that answers with the address the SSRF check vetted: the
 * connection goes there, never to a fresh (possibly rebound) DNS answer.
 */
export function pinnedLookup(vetted: ResolvedAddress): LookupFunction {
  return (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [vetted]);
    } else {
      callback(null, vetted.address, vetted.family);
    }
  };
}
