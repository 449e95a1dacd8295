/** Organization membership levels, with PostHog's numbers. */
export const MEMBER = 1;
export const ADMIN = 8;
export const OWNER = 15;

export const LEVELS = [MEMBER, ADMIN, OWNER] as const;
