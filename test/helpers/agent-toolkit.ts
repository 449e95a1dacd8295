import { getToolsFromContext, PostHogAgentToolkit } from '@posthog/agent-toolkit/tools';
import type { Harness } from './harness.js';

/** The scopes every toolkit session needs to start: it reads the user, the key and the project. */
const SESSION_SCOPES = ['query:read', 'project:read', 'organization:read', 'user:read'];

export interface ToolkitAgent {
  tools: Awaited<ReturnType<typeof getToolsFromContext>>;
  context: ReturnType<PostHogAgentToolkit['getContext']>;
  /**
   * Calls a tool as the MCP server does (arguments parsed by its schema, then its handler) and
   * answers its text parsed as JSON, or the text itself when it is not JSON.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each tool answers its own JSON shape; tests read fields from it as PostHog documents them
  call(name: string, params: unknown): Promise<any>;
}

/**
 * PostHog's agent toolkit, unchanged, as an agent with its own user and a key scoped to the
 * harness's project and organization (the toolkit requires both lists) holding `scopes` plus what
 * its session needs. `url` is where the harness listens.
 */
export async function startToolkitAgent(h: Harness, url: string, scopes: string[]): Promise<ToolkitAgent> {
  const agent = await h.user({
    organizationId: h.boot.organization_id,
    key: {
      scopes: [...new Set([...scopes, ...SESSION_SCOPES])],
      scoped_teams: [h.boot.project_id],
      scoped_organizations: [h.boot.organization_id],
    },
  });
  const toolkit = new PostHogAgentToolkit({ posthogApiToken: agent.key, posthogApiBaseUrl: url });
  const context = toolkit.getContext();
  const tools = await getToolsFromContext(context);
  return {
    tools,
    context,
    async call(name, params) {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`tool ${name} not offered (have: ${tools.map((t) => t.name).join(', ')})`);
      const out = (await tool.handler(context, tool.schema.parse(params))) as { content: { text: string }[] };
      const text = out.content[0]?.text ?? 'null';
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    },
  };
}
