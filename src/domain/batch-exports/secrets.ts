import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secret destination fields (passwords, keys, tokens) are stored encrypted with AES-256-GCM under a
 * key derived from `BURROW_SECRET_KEY`. The export's id is bound in as associated data, so a
 * ciphertext copied onto another export does not decrypt.
 */
export interface SecretBox {
  seal(exportId: string, values: Record<string, unknown>): string | null;
  open(exportId: string, sealed: string | null): Record<string, unknown>;
}

const VERSION = 'v1';

export function secretBox(secret: string | Buffer): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secret, 'burrow', 'batch-export-secrets', 32));
  return {
    seal(exportId, values) {
      if (Object.keys(values).length === 0) return null;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(exportId));
      const body = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(exportId, sealed) {
      if (!sealed) return {};
      const [version, data] = sealed.split('.');
      if (version !== VERSION || !data) throw new Error('unknown secret format');
      const raw = Buffer.from(data, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(exportId));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as Record<string, unknown>;
    },
  };
}
