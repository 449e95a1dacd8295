import type { QueryRuntime } from '../execution/runtime.js';
import type { Counters } from '../store/shared/counters.js';
import { annotationRoutes } from './annotations.js';
import type { ApiPlugin } from './context.js';
import { dashboardRoutes } from './dashboards.js';
import { errorTrackingIssueRoutes } from './error-tracking-issues.js';
import { errorTrackingRuleRoutes } from './error-tracking-rules.js';
import { errorTrackingSymbolRoutes } from './error-tracking-symbols.js';
import { insightRoutes } from './insights.js';
import { llmPromptRoutes } from './llm-prompts.js';
import { mcpToolRoutes } from './mcp-tools.js';
import { sharingRoutes } from './sharing.js';

/** Saved insights, dashboards, annotations, sharing links and the MCP tool endpoints, error tracking issues. */
export const savedRoutes: ApiPlugin<{ query: QueryRuntime; counters: Counters }> = async (app, options) => {
  await app.register(insightRoutes, options);
  await app.register(dashboardRoutes, options);
  await app.register(annotationRoutes, options);
  await app.register(mcpToolRoutes, options);
  await app.register(sharingRoutes, options);
  await app.register(llmPromptRoutes, options);
  await app.register(errorTrackingIssueRoutes, options);
  await app.register(errorTrackingRuleRoutes, options);
  await app.register(errorTrackingSymbolRoutes, options);
};
