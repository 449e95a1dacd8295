/** The hog function API's shapes as the console reads them (docs/destinations.md). */

export interface InputSchema {
  key: string;
  type: 'string' | 'json' | 'dictionary' | 'boolean' | 'choice';
  label: string;
  required?: boolean;
  secret?: boolean;
  default?: unknown;
  description?: string;
  choices?: Array<{ label: string; value: string }>;
  templating?: boolean;
}

/** A stored input: its value, or `{secret: true}` for a secret that is set (never its value). */
export interface StoredInput {
  value?: unknown;
  templating?: 'hog' | 'liquid';
  secret?: boolean;
}

export interface EventFilter {
  id: string;
  name?: string;
  type: 'events';
  [field: string]: unknown;
}

export interface Filters {
  events?: EventFilter[];
  actions?: unknown[];
  properties?: unknown[];
  filter_test_accounts?: boolean;
  [field: string]: unknown;
}

export interface HogFunction {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  template_id: string | null;
  inputs_schema: InputSchema[];
  inputs: Record<string, StoredInput>;
  filters: Filters;
  created_at: string;
  updated_at: string;
}

export interface Template {
  id: string;
  name: string;
  description: string;
  category: string[];
  inputs_schema: InputSchema[];
}

export interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface Invocation {
  status: string;
  logs: Array<{ level: string; timestamp: string; message: string }>;
  request: SentRequest | null;
}

/** What a form would save: the body of POST / PATCH and the invocation's `configuration`. */
export interface Configuration {
  name: string;
  template_id: string;
  inputs: Record<string, StoredInput>;
  filters: Filters;
}
