import { BlockList, isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { CaptureEvent } from '../ingest/rows.js';
import type { GeoLookup, GeoProperties } from './lookup.js';

/** Distinct addresses remembered: a capture stream repeats them (every event of a request shares one). */
const CACHE_SIZE = 50_000;
/**
 * A location as the step writes it, made once per address: the properties, and the same under
 * their `$initial_` names. Copied whole (`{...}` of a small object is one clone) into events that
 * have no `$set` / `$set_once` of their own, merged key by key into those that do.
 */
interface Located {
  props: GeoProperties;
  initial: GeoProperties;
}
const NOTHING: Located = { props: {}, initial: {} };
const located = (geo: GeoProperties | null): Located =>
  geo
    ? {
        props: geo,
        initial: Object.fromEntries(
          Object.entries(geo).map(([key, value]) => [`$initial_${key.slice(1)}`, value]),
        ),
      }
    : NOTHING;

/** `extra`'s keys that `into` does not have yet, added to it. */
function fill(into: Record<string, unknown>, extra: GeoProperties): void {
  for (const key in extra) if (into[key] === undefined) into[key] = extra[key];
}

/** Addresses no database locates (private, loopback, link-local, shared): no lookup, no load. */
const LOCAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  LOCAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  LOCAL.addSubnet(net, bits, 'ipv6');

/** An IPv4 address written as IPv6 (`::ffff:1.2.3.4`, from a dual-stack socket) as plain IPv4. */
const plain = (ip: string) => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/** Whether an address may be located: a valid, public IPv4 or IPv6 address. */
export function locatable(address: string): boolean {
  const ip = plain(address);
  const version = isIP(ip);
  if (version === 0) return false;
  return !LOCAL.check(ip, version === 4 ? 'ipv4' : 'ipv6');
}

export interface GeoStep {
  /** Adds PostHog's `$geoip_*` to each event with an `$ip`, and to its person's `$set` / `$set_once`. */
  enrich(events: CaptureEvent[]): void | Promise<void>;
}

/**
 * The GeoIP step of capture, as PostHog's GeoIP transformation does it: from the event's `$ip`
 * (the request's address unless the event brought its own; none when the project discards IPs),
 * skipped for `$geoip_disable`; the event gets `$geoip_*`, its person `$set` of the same and
 * `$set_once` of `$initial_geoip_*` (a `$set` the event makes itself wins). The database loads on
 * the first event that needs it (`load`, off the event loop), so an idle server does not hold it.
 */
export function createGeoStep(load: () => Promise<GeoLookup | null>): GeoStep {
  let lookup: GeoLookup | null | undefined;
  let loading: Promise<void> | undefined;
  const cache = new LRUCache<string, Located>({ max: CACHE_SIZE });
  // Events of one request share their address: the last answer is checked before the cache.
  let lastIp = '';
  let last: Located = NOTHING;
  const find = (ip: string): Located => {
    if (ip === lastIp) return last;
    let hit = cache.get(ip);
    if (hit === undefined) {
      hit = located(lookup?.lookup(plain(ip)) ?? null);
      cache.set(ip, hit);
    }
    lastIp = ip;
    last = hit;
    return hit;
  };
  // Until the database is loaded every request is checked for an address worth loading it for;
  // traffic from private addresses (an intranet, a proxy that hides clients) repeats one address,
  // and BlockList allocates on each check, so the last answer is kept.
  let lastChecked = '';
  let lastLocatable = false;
  const wanted = (e: CaptureEvent) => {
    const ip = e.properties.$ip;
    if (typeof ip !== 'string' || e.properties.$geoip_disable === true || e.event === '$snapshot')
      return false;
    if (ip !== lastChecked) {
      lastChecked = ip;
      lastLocatable = locatable(ip);
    }
    return lastLocatable;
  };
  const apply = (events: CaptureEvent[]) => {
    for (const e of events) {
      const p = e.properties;
      const ip = p.$ip;
      if (typeof ip !== 'string' || ip === '' || p.$geoip_disable === true || e.event === '$snapshot')
        continue;
      // Private and malformed addresses are remembered as NOTHING like any other.
      const geo = find(ip);
      if (geo === NOTHING) continue;
      Object.assign(p, geo.props);
      const set = p.$set;
      if (set && typeof set === 'object') fill(set as Record<string, unknown>, geo.props);
      else p.$set = { ...geo.props };
      const once = p.$set_once;
      if (once && typeof once === 'object') fill(once as Record<string, unknown>, geo.initial);
      else p.$set_once = { ...geo.initial };
    }
  };
  return {
    enrich(events) {
      if (lookup !== undefined) return apply(events);
      if (!events.some(wanted)) return;
      loading ??= load().then(
        (l) => {
          lookup = l;
        },
        () => {
          lookup = null;
        },
      );
      return loading.then(() => apply(events));
    },
  };
}
