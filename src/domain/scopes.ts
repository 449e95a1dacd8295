/**
 * API scopes. A route declares one `RouteScope`; a key carries a list of granted scope strings.
 * The object names are PostHog's, so keys minted for PostHog clients mean the same here.
 */
export const SCOPE_OBJECTS = [
  'action',
  'access_control',
  'activity_log',
  'annotation',
  'batch_export',
  'batch_import',
  'cohort',
  'dashboard',
  'dashboard_template',
  'early_access_feature',
  'error_tracking',
  'event_definition',
  'experiment',
  'export',
  'feature_flag',
  'file_system',
  'group',
  'hog_function',
  'insight',
  'llm_prompt',
  'logs',
  'notebook',
  'organization',
  'organization_member',
  'person',
  'plugin',
  'project',
  'property_definition',
  'query',
  'session_recording',
  'session_recording_playlist',
  'sharing_configuration',
  'subscription',
  'survey',
  'user',
  'warehouse_table',
  'warehouse_view',
  'webhook',
] as const;

export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
export type ScopeAction = 'read' | 'write';

/**
 * - `{object, action}`: the key needs `object:action` (write implies read) or `*`.
 * - `internal`: operations PostHog refuses to personal keys; Burrow lets only `*` keys through.
 * - `authenticated`: any valid credential (e.g. reading the key's own record).
 * - `public`: no credential at all (health, docs, capture).
 */
export type RouteScope =
  | { object: ScopeObject; action: ScopeAction }
  | { kind: 'internal' }
  | { kind: 'authenticated' }
  | { kind: 'public' };

export const scope = (object: ScopeObject, action: ScopeAction): RouteScope => ({ object, action });
export const INTERNAL: RouteScope = { kind: 'internal' };
export const AUTHENTICATED: RouteScope = { kind: 'authenticated' };
export const PUBLIC: RouteScope = { kind: 'public' };

const OBJECTS = new Set<string>(SCOPE_OBJECTS);

export function isValidScope(value: string): boolean {
  if (value === '*') return true;
  const [object, action, ...rest] = value.split(':');
  return (
    rest.length === 0 &&
    object !== undefined &&
    OBJECTS.has(object) &&
    (action === 'read' || action === 'write')
  );
}

/** The scope string a grant is missing, or null when `granted` covers `required`. */
export function missingScope(granted: readonly string[], required: RouteScope): string | null {
  if ('kind' in required) {
    if (required.kind === 'internal') return granted.includes('*') ? null : 'INTERNAL';
    return null;
  }
  if (granted.includes('*')) return null;
  const needed = `${required.object}:${required.action}`;
  if (granted.includes(needed)) return null;
  if (required.action === 'read' && granted.includes(`${required.object}:write`)) return null;
  return needed;
}

export function describeScope(s: RouteScope): string {
  return 'kind' in s ? s.kind : `${s.object}:${s.action}`;
}
