import { X509Certificate } from 'node:crypto';
import { validationError } from '../../errors.js';
import { text } from '../validate.js';

/** Lowercase labels of letters, digits and inner dashes, ending in a TLD of two or more letters. */
const DOMAIN = /^([a-z0-9]+(-[a-z0-9]+)*\.)+[a-z]{2,}$/;

export function domainName(value: string): string {
  const domain = text(value, 'domain', 128);
  if (!DOMAIN.test(domain)) throw validationError('Please enter a valid domain or subdomain name.', 'domain');
  return domain;
}

const maxLength = (value: string, attr: string, limit: number) => {
  if (value.length > limit) {
    throw validationError(`Ensure this field has no more than ${limit} characters.`, attr, 'max_length');
  }
  return value;
};

export function samlEntityId(value: string | null): string | null {
  return value === null ? null : maxLength(value.trim(), 'saml_entity_id', 512);
}

/** An absolute http(s) URL, as the identity provider posts assertions to it. */
export function samlAcsUrl(value: string | null): string | null {
  if (value === null) return null;
  const url = maxLength(value.trim(), 'saml_acs_url', 512);
  if (url === '') return url;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || !parsed.hostname) {
    throw validationError('Enter a valid URL.', 'saml_acs_url');
  }
  return url;
}

const PEM = /^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+?\r?\n-----END CERTIFICATE-----\s*$/;
const BARE_BASE64 = /^[A-Za-z0-9+/=\s]+$/;

/**
 * An X.509 certificate in PEM form. Identity providers often show only the base64 body, so that is
 * accepted too and stored with the PEM armour added; anything that does not parse is refused.
 */
export function samlX509Cert(value: string | null): string | null {
  if (value === null) return null;
  const raw = maxLength(value.trim(), 'saml_x509_cert', 20_000);
  if (raw === '') return raw;
  let pem = raw;
  if (!PEM.test(raw) && BARE_BASE64.test(raw)) {
    const body = raw.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n');
    pem = `-----BEGIN CERTIFICATE-----\n${body.trimEnd()}\n-----END CERTIFICATE-----`;
  }
  try {
    if (!PEM.test(pem)) throw new Error('not PEM');
    new X509Certificate(pem);
  } catch {
    throw validationError('Enter a valid PEM-encoded X.509 certificate.', 'saml_x509_cert');
  }
  return pem;
}

export const hasSaml = (d: {
  samlEntityId: string | null;
  samlAcsUrl: string | null;
  samlX509Cert: string | null;
}) => !!d.samlEntityId && !!d.samlAcsUrl && !!d.samlX509Cert;
