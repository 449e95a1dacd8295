import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Authenticator } from '../domain/accounts/authenticate.js';
import type { Deps } from '../domain/deps.js';
import type { Bus } from '../store/shared/bus.js';

/** What every route plugin is registered with. */
export interface ApiOptions {
  deps: Deps;
  authenticator: Authenticator;
  /** Readiness checks by store name; each resolves when its store answers. */
  probes: Record<string, () => Promise<unknown>>;
  /** Cross-node notices (settings and flag changes). */
  bus?: Bus;
}

export type ApiPlugin<Extra = object> = FastifyPluginAsyncTypebox<ApiOptions & Extra>;
