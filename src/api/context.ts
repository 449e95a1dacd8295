import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Authenticator } from '../domain/accounts/authenticate.js';
import type { Deps } from '../domain/deps.js';

/** What every route plugin is registered with. */
export interface ApiOptions {
  deps: Deps;
  authenticator: Authenticator;
  /** Readiness checks by store name; each resolves when its store answers. */
  probes: Record<string, () => Promise<unknown>>;
}

export type ApiPlugin<Extra = object> = FastifyPluginAsyncTypebox<ApiOptions & Extra>;
