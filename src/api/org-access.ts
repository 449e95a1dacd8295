import type { LoginLimits } from '../domain/accounts/login-sessions.js';
import type { Mailer } from '../domain/organizations/mail.js';
import type { TxtLookup } from '../domain/organizations/org-domain-verify.js';
import type { Counters } from '../store/shared/counters.js';
import type { ApiPlugin } from './context.js';
import { inviteRoutes } from './invites.js';
import { sessionRoutes } from './login-sessions.js';
import { memberRoutes } from './members.js';
import { domainRoutes } from './org-domains.js';
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
