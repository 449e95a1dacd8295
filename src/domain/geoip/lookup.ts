import { isIP } from 'node:net';
import { Reader } from 'mmdb-lib';
import { CONTINENT_NAMES, continentOf } from './continents.js';

/** PostHog's `$geoip_*` properties of one address (only those the database knows). */
export type GeoProperties = Record<string, string | number>;

/** Looks an address up; null when the database has nothing for it (private ranges included). */
export interface GeoLookup {
  lookup(ip: string): GeoProperties | null;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
const countryName = (code: string) => {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** ip-location-db's schema (DB-IP and GeoLite2 "city" files on npm): flat, names only. */
interface FlatRecord {
  country_code?: string;
  state1?: string;
  state2?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
}

interface RawReader {
  metadata: { ipVersion: number };
  get(ip: string): unknown;
}

/** MaxMind's GeoIP2 / GeoLite2 City schema, for a database file given instead. */
interface MaxMindRecord {
  continent?: { code?: string; names?: { en?: string } };
  country?: { iso_code?: string; names?: { en?: string } };
  subdivisions?: Array<{ iso_code?: string; names?: { en?: string } }>;
  city?: { names?: { en?: string } };
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string; accuracy_radius?: number };
}

function put(out: GeoProperties, key: string, value: string | number | undefined): void {
  if (value !== undefined) out[key] = value;
}

/** PostHog's property names from either schema. */
export function geoProperties(raw: unknown): GeoProperties | null {
  if (!raw || typeof raw !== 'object') return null;
  const out: GeoProperties = {};
  if (typeof (raw as MaxMindRecord).country === 'object') {
    const record = raw as MaxMindRecord;
    const country = text(record.country?.iso_code);
    put(out, '$geoip_city_name', text(record.city?.names?.en));
    put(out, '$geoip_country_name', text(record.country?.names?.en) ?? (country && countryName(country)));
    put(out, '$geoip_country_code', country);
    put(out, '$geoip_continent_name', text(record.continent?.names?.en));
    put(out, '$geoip_continent_code', text(record.continent?.code));
    put(out, '$geoip_postal_code', text(record.postal?.code));
    put(out, '$geoip_latitude', num(record.location?.latitude));
    put(out, '$geoip_longitude', num(record.location?.longitude));
    put(out, '$geoip_accuracy_radius', num(record.location?.accuracy_radius));
    put(out, '$geoip_time_zone', text(record.location?.time_zone));
    record.subdivisions?.slice(0, 2).forEach((s, i) => {
      put(out, `$geoip_subdivision_${i + 1}_code`, text(s.iso_code));
      put(out, `$geoip_subdivision_${i + 1}_name`, text(s.names?.en));
    });
  } else {
    const record = raw as FlatRecord;
    const country = text(record.country_code);
    if (!country) return null;
    const continent = continentOf(country);
    put(out, '$geoip_city_name', text(record.city));
    put(out, '$geoip_country_name', countryName(country));
    put(out, '$geoip_country_code', country);
    put(out, '$geoip_continent_name', continent && CONTINENT_NAMES[continent]);
    put(out, '$geoip_continent_code', continent);
    put(out, '$geoip_postal_code', text(record.postcode));
    put(out, '$geoip_latitude', num(record.latitude));
    put(out, '$geoip_longitude', num(record.longitude));
    put(out, '$geoip_time_zone', text(record.timezone));
    put(out, '$geoip_subdivision_1_name', text(record.state1));
    put(out, '$geoip_subdivision_2_name', text(record.state2));
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * A lookup over one or more MMDB files (ip-location-db ships IPv4 and IPv6 apart; a MaxMind file
 * holds both). The first file whose IP version fits the address and knows it answers.
 */
export function mmdbLookup(files: readonly Buffer[]): GeoLookup {
  // The reader's own types describe MaxMind's schemas only; records are read as unknown.
  const readers = files.map((buffer) => new Reader(buffer) as unknown as RawReader);
  const v4 = readers.filter((r) => r.metadata.ipVersion === 4 || r.metadata.ipVersion === 6);
  const v6 = readers.filter((r) => r.metadata.ipVersion === 6);
  return {
    lookup(ip) {
      const version = isIP(ip);
      if (version === 0) return null;
      for (const reader of version === 4 ? v4 : v6) {
        let record: unknown;
        try {
          record = reader.get(ip);
        } catch {
          // An IPv6-only file asked for an IPv4 address (or the reverse): the next file answers.
          continue;
        }
        if (record) return geoProperties(record);
      }
      return null;
    },
  };
}
