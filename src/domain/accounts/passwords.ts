import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are stored as `scrypt$N$r$p$salt$key` (base64 salt and key). The parameters travel with
 * each hash, so they can be raised later without invalidating existing passwords.
 */
const PREFIX = 'scrypt';
// One of OWASP's equivalent scrypt settings: 32 MiB of memory per hash (128·N·r), about 0.1–0.4 s.
const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
// Hashes read from the store are bounded, so a tampered row cannot ask for gigabytes.
const MAX_MEMORY = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }) {
  const options: ScryptOptions = { ...params, maxmem: MAX_MEMORY };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMS);
  const { N, r, p } = PARAMS;
  return [PREFIX, N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

function parse(stored: string) {
  const [prefix, n, r, p, salt, key] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (prefix !== PREFIX || !salt || !key || !Object.values(params).every(Number.isSafeInteger)) return null;
  if (128 * params.N * params.r > MAX_MEMORY / 2) return null;
  return { params, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

let decoy: Promise<string> | undefined;

/**
 * True when `password` matches. A user without a password (or no user at all) still costs one
 * derivation, so response times do not tell which email addresses have accounts.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parse(stored) : null;
  if (!parsed) {
    decoy ??= hashPassword('decoy password');
    const fallback = parse(await decoy)!;
    await derive(password, fallback.salt, fallback.params);
    return false;
  }
  try {
    const key = await derive(password, parsed.salt, parsed.params);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  } catch {
    return false;
  }
}
