import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a destination may reach when private networks are not allowed: only global
 * unicast ones, as classified by ipaddr.js (its ranges follow the IANA special-purpose address
 * registries), and never an address of this machine's own interfaces (which may be public, or in a
 * TEST-NET range as on some hosts).
 *
 * IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`, SIIT `::ffff:0:a.b.c.d`) are judged by the IPv4 address they
 * reach; a NAT64 network still reaches public IPv4 hosts that way. Teredo (`2001::/32`) is refused
 * whole: it tunnels to an obfuscated client address through a relay.
 */
export function isForbiddenAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return true; // Not an address we can classify: never a destination.
  }
  const v4 = embeddedIPv4(parsed);
  if (v4) return v4.range() !== 'unicast' || isOwnAddress(v4);
  return parsed.range() !== 'unicast' || isOwnAddress(parsed);
}

/** The IPv4 address an IPv4 or IPv4-embedding IPv6 address reaches; null for other IPv6. */
function embeddedIPv4(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | null {
  if (ip.kind() === 'ipv4') return ip as ipaddr.IPv4;
  const v6 = ip as ipaddr.IPv6;
  const p = v6.parts;
  const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (v6.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // 64:ff9b::a.b.c.d (and the local-use 64:ff9b:1::/48, last 32 bits)
      return fromWords(p[6]!, p[7]!);
    case '6to4': // 2002:AABB:CCDD::/48
      return fromWords(p[1]!, p[2]!);
  }
  // IPv4-compatible ::a.b.c.d (deprecated, but still routed by some stacks). `::` and `::1` stay
  // IPv6 (unspecified, loopback), refused as such.
  if (p.slice(0, 6).every((w) => w === 0) && (p[6] !== 0 || p[7]! > 1)) return fromWords(p[6]!, p[7]!);
  return null;
}

/** Whether `ip` is one of this machine's interface addresses (read each time: interfaces change). */
function isOwnAddress(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  const wanted = ip.toNormalizedString();
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) {
      try {
        const own = ipaddr.process(info.address.replace(/%.*$/, ''));
        if (own.kind() === ip.kind() && own.toNormalizedString() === wanted) return true;
      } catch {
        // An interface address Node reports but ipaddr cannot parse: nothing to compare.
      }
    }
  }
  return false;
}
