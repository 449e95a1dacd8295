import { readFileSync } from 'node:fs';
import { Reader } from 'mmdb-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { geoipFiles, loadGeoip } from '../../src/domain/geoip/database.js';
import { locatable } from '../../src/domain/geoip/enrich.js';
import { type GeoLookup, geoProperties } from '../../src/domain/geoip/lookup.js';

/**
 * The shipped DB-IP City Lite database through Burrow's lookup. Known addresses are checked
 * against what the database itself holds (read with the MMDB reader directly) and against
 * well-known facts (country, continent); private addresses get nothing.
 */
let geo: GeoLookup;
const [v4file, v6file] = geoipFiles(undefined) as [string, string];
let raw4: Reader<never>;
let raw6: Reader<never>;

beforeAll(async () => {
  geo = (await loadGeoip(geoipFiles(undefined))) as GeoLookup;
  raw4 = new Reader(readFileSync(v4file));
  raw6 = new Reader(readFileSync(v6file));
});

describe('GeoIP lookup (DB-IP City Lite)', () => {
  it.each([
    ['8.8.8.8', 'US', 'United States', 'NA', 'North America'],
    ['81.2.69.142', 'GB', 'United Kingdom', 'EU', 'Europe'],
    ['1.1.1.1', 'AU', 'Australia', 'OC', 'Oceania'],
    ['2001:4860:4860::8888', 'CA', 'Canada', 'NA', 'North America'],
  ])('locates %s in %s', (ip, code, name, continent, continentName) => {
    expect(geo.lookup(ip)).toMatchObject({
      $geoip_country_code: code,
      $geoip_country_name: name,
      $geoip_continent_code: continent,
      $geoip_continent_name: continentName,
      $geoip_latitude: expect.any(Number),
      $geoip_longitude: expect.any(Number),
    });
  });

  it('reads city and subdivision exactly as the database holds them, for many addresses', () => {
    let checked = 0;
    const continents = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      // Spread over the public IPv4 space (a fixed walk, so the test is the same every run).
      const ip = `${((i * 37) % 223) + 1}.${(i * 91) % 256}.${(i * 13) % 256}.${(i * 7) % 256}`;
      if (!locatable(ip)) continue;
      const record = raw4.get(ip) as Record<string, string | number> | null;
      const got = geo.lookup(ip);
      if (!record) {
        expect(got).toBeNull();
        continue;
      }
      checked++;
      expect(got?.$geoip_country_code).toBe(record.country_code);
      expect(got?.$geoip_city_name).toBe(record.city || undefined);
      expect(got?.$geoip_subdivision_1_name).toBe(record.state1 || undefined);
      // Every country the database uses has a continent in Burrow's table.
      expect(got?.$geoip_continent_code, String(record.country_code)).toMatch(/^(AF|AN|AS|EU|NA|OC|SA)$/);
      continents.add(got?.$geoip_continent_code as string);
    }
    expect(checked).toBeGreaterThan(1000);
    expect(continents.size).toBeGreaterThanOrEqual(5);
    const v6 = raw6.get('2a00:1450:4001:82b::200e') as Record<string, string> | null;
    expect(geo.lookup('2a00:1450:4001:82b::200e')?.$geoip_country_code).toBe(v6?.country_code);
  });

  it.each([
    '10.1.2.3',
    '192.168.1.1',
    '172.16.0.5',
    '127.0.0.1',
    '169.254.1.1',
    '100.64.0.1',
    '::1',
    'fe80::1',
    'fd00::1',
    'not-an-ip',
    '',
  ])('gives nothing for %s', (ip) => {
    expect(locatable(ip)).toBe(false);
    expect(geo.lookup(ip)).toBeNull();
  });

  it('reads an IPv4 address written as IPv6 as the IPv4 one', () => {
    expect(locatable('::ffff:81.2.69.142')).toBe(true);
  });

  it('maps MaxMind’s GeoIP2 City schema too', () => {
    expect(
      geoProperties({
        continent: { code: 'EU', names: { en: 'Europe' } },
        country: { iso_code: 'NL', names: { en: 'Netherlands' } },
        subdivisions: [{ iso_code: 'NH', names: { en: 'North Holland' } }],
        city: { names: { en: 'Amsterdam' } },
        postal: { code: '1012' },
        location: { latitude: 52.37, longitude: 4.89, time_zone: 'Europe/Amsterdam', accuracy_radius: 20 },
      }),
    ).toEqual({
      $geoip_city_name: 'Amsterdam',
      $geoip_country_name: 'Netherlands',
      $geoip_country_code: 'NL',
      $geoip_continent_name: 'Europe',
      $geoip_continent_code: 'EU',
      $geoip_postal_code: '1012',
      $geoip_latitude: 52.37,
      $geoip_longitude: 4.89,
      $geoip_accuracy_radius: 20,
      $geoip_time_zone: 'Europe/Amsterdam',
      $geoip_subdivision_1_code: 'NH',
      $geoip_subdivision_1_name: 'North Holland',
    });
  });
});
