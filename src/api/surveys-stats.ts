import type { ApiPlugin } from './context.js';
export const surveyStatsRoutes: ApiPlugin<object> = async () => {};
