import type { TxtLookup } from '../domain/domain-verify.js';
import type { Mailer } from '../domain/mail.js';
import type { LoginLimits } from '../domain/sessions.js';
import type { Counters } from '../store/shared/counters.js';
import type { ApiPlugin } from './context.js';
import { domainRoutes } from './domains.js';
import { inviteRoutes } from './invites.js';
import { memberRoutes } from './members.js';
import { sessionRoutes } from './sessions.js';
import { signupRoutes } from './signup.js';

export interface OrgAccessOptions {
  lookupTxt: TxtLookup;
  mailer: Mailer | null;
  siteUrl: string | undefined;
  counters: Counters;
  loginLimits: LoginLimits;
}

/** Organization domains, invites and members, plus signup through an invite and login. */
export const orgAccessRoutes: ApiPlugin<OrgAccessOptions> = async (app, options) => {
  for (const plugin of [domainRoutes, inviteRoutes, memberRoutes, signupRoutes, sessionRoutes]) {
    await app.register(plugin as ApiPlugin<OrgAccessOptions>, options);
  }
};
