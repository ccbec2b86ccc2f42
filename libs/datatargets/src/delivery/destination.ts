import { isIPv4, isIPv6 } from 'node:net';

/*
 * Which resolved addresses a webhook may connect to. An allow-list for IPv6 (global unicast
 * 2000::/3 minus its special blocks) and a deny-list for IPv4 (the IANA special-purpose
 * registry), so an outlet URL cannot reach the service's own host, its network or a cloud
 * metadata endpoint. Addresses that embed an IPv4 address are judged by that address.
 */

interface Block {
  base: bigint;
  /** Bits of the address family (32 or 128) minus the prefix length: the bits a match ignores. */
  hostBits: bigint;
  what: string;
}

const IPV4_BLOCKS: Block[] = [
  ['0.0.0.0/8', 'an unspecified address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a reserved address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a reserved address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  // Before 240/4 so the limited broadcast address gets its own name.
  ['255.255.255.255/32', 'a broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
].map(([cidr, what]) => block(cidr, what, 32));

// Checked in order; the first match decides.
const IPV6_BLOCKS: Block[] = [
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['64:ff9b:1::/48', 'a private address'],
  ['100::/64', 'a reserved address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001::/23', 'a reserved address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
].map(([cidr, what]) => block(cidr, what, 128));

const GLOBAL_UNICAST = block('2000::/3', '', 128);
const IPV4_MAPPED = block('::ffff:0:0/96', '', 128);
const NAT64 = block('64:ff9b::/96', '', 128);
const SIX_TO_FOUR = block('2002::/16', '', 128);

/** Why a webhook may not connect to `address` (an IPv4 or IPv6 literal), or undefined when it may. */
export function destinationProblem(address: string): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(bare)) {
    const what = ipv4Problem(parseIPv4(bare));
    return what === undefined ? undefined : `${address} is ${what}`;
  }
  if (!isIPv6(bare)) return `${address} is not an IP address`;

  const value = parseIPv6(bare);
  const embedded = inBlock(value, IPV4_MAPPED)
    ? { value: value & 0xffffffffn, kind: 'IPv4-mapped' }
    : inBlock(value, NAT64)
      ? { value: value & 0xffffffffn, kind: 'NAT64' }
      : inBlock(value, SIX_TO_FOUR)
        ? { value: (value >> 80n) & 0xffffffffn, kind: '6to4' }
        : undefined;
  if (embedded !== undefined) {
    const what = ipv4Problem(embedded.value);
    if (what === undefined) return undefined;
    return `${address} is ${what} (${embedded.kind} ${formatIPv4(embedded.value)})`;
  }
  const special = IPV6_BLOCKS.find((b) => inBlock(value, b));
  if (special !== undefined) return `${address} is ${special.what}`;
  if (!inBlock(value, GLOBAL_UNICAST)) return `${address} is a reserved address`;
  return undefined;
}

/** `localhost` and the names under it: loopback by definition (RFC 6761), whatever a resolver answers. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Why an outlet may not be given a URL to `hostname` while private destinations are not allowed: an
 * address the worker would refuse, a localhost name, or a name whose every address the worker would
 * refuse. `resolved`: the name's addresses, undefined when it did not resolve (accepted: it may later,
 * and the worker checks every connection anyway).
 */
export function privateDestination(hostname: string, resolved: readonly string[] | undefined): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(bare) || isIPv6(bare)) return destinationProblem(bare);
  if (isLocalhostName(bare)) return `${hostname} is a loopback name`;
  if (resolved === undefined || resolved.length === 0) return undefined;
  const problems = resolved.map(destinationProblem);
  if (problems.some((p) => p === undefined)) return undefined;
  return `${hostname} resolves only to refused addresses (${problems.join('; ')})`;
}

function ipv4Problem(value: bigint): string | undefined {
  return IPV4_BLOCKS.find((b) => inBlock(value, b))?.what;
}

function block(cidr: string, what: string, bits: 32 | 128): Block {
  const [base, prefix] = cidr.split('/');
  return { base: bits === 32 ? parseIPv4(base) : parseIPv6(base), hostBits: BigInt(bits - Number(prefix)), what };
}

function inBlock(value: bigint, b: Block): boolean {
  return value >> b.hostBits === b.base >> b.hostBits;
}

function parseIPv4(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** Expects text that `isIPv6` accepted (no zone id), including a dotted IPv4 tail. */
function parseIPv6(text: string): bigint {
  let body = text;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]);
    tail.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    body = body.slice(0, -dotted[1].length);
    if (body.endsWith(':') && !body.endsWith('::')) body = body.slice(0, -1);
  }
  const [head, rest] = body.includes('::') ? body.split('::') : [body, undefined];
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = [...(rest === undefined ? [] : groups(rest)), ...tail];
  const hextets = rest === undefined ? [...left, ...right] : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return hextets.reduce((acc, h) => (acc << 16n) | BigInt(h), 0n);
}
