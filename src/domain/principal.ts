import type { PersonalApiKeyRecord } from '../store/meta/personal-api-keys.js';
import type { UserRecord } from '../store/meta/users.js';

/** Who is calling, and through which credential. Session logins (no key) arrive in a later issue. */
export interface Principal {
  user: UserRecord;
  key: PersonalApiKeyRecord | null;
}

/** A key with null or empty scopes is a legacy full-access key, as in PostHog's classic behaviour. */
export function grantedScopes(principal: Principal): string[] {
  if (!principal.key) return ['*'];
  return principal.key.scopes.length > 0 ? principal.key.scopes : ['*'];
}
