import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** TracesQuery and TraceQuery on `/query/` over events captured through `/batch/`. */
describe(`LLM traces queries (${backend})`, () => {
  let h: Harness;
  const t0 = Date.now() - 60_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    const gen = (trace: string, s: number, extra: Record<string, unknown>) => ({
      event: '$ai_generation',
      distinct_id: 'ada',
      timestamp: at(s),
      properties: { $ai_trace_id: trace, $ai_model: 'gpt-4o-mini', $ai_provider: 'openai', ...extra },
    });
    const batch = [
      {
        event: '$identify',
        distinct_id: 'ada',
        timestamp: at(0),
        properties: { $set: { email: 'ada@example.com' } },
      },
      {
        event: '$ai_trace',
        distinct_id: 'ada',
        timestamp: at(1),
        properties: {
          $ai_trace_id: 't-1',
          $ai_span_name: 'chat turn',
          $ai_latency: 4.5,
          $ai_input_state: { q: 'hi' },
          $ai_output_state: 'done',
          team: 'red',
        },
      },
      {
        event: '$ai_span',
        distinct_id: 'ada',
        timestamp: at(2),
        properties: {
          $ai_trace_id: 't-1',
          $ai_span_id: 's-1',
          $ai_parent_id: 't-1',
          $ai_span_name: 'retrieve',
          $ai_session_id: 'conversation-9',
        },
      },
      gen('t-1', 3, {
        $ai_parent_id: 's-1',
        $ai_input_tokens: 1000,
        $ai_output_tokens: 500,
        $ai_latency: 1.5,
      }),
      gen('t-1', 4, {
        $ai_input_tokens: 2000,
        $ai_output_tokens: 0,
        $ai_latency: 2,
        $ai_is_error: true,
        $ai_http_status: 500,
      }),
      gen('t-2', 10, { $ai_input_tokens: 10, $ai_output_tokens: 10, $ai_latency: 0.25 }),
      // Personless: no person row, so the trace's person is the event's person id and no date.
      {
        event: '$ai_generation',
        distinct_id: 'anon-llm',
        timestamp: at(0.5),
        properties: { $ai_trace_id: 't-0', $ai_model: 'gpt-4o-mini', $process_person_profile: false },
      },
      gen('t-3', 20, {
        $ai_input_tokens: 10,
        $ai_output_tokens: 10,
        $ai_latency: 0.5,
        $ai_trace_name: 'third',
      }),
    ];
    const res = await h.request('POST', '/batch/', { body: { api_key: h.boot.project_api_key, batch } });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await h?.close();
  });

  const query = async (query: Record<string, unknown>) => {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, { body: { query } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('lists traces newest first with latency, tokens, costs, name, person and pages', async () => {
    const page = await query({ kind: 'TracesQuery', limit: 2 });
    expect(page.results.map((t: { id: string }) => t.id)).toEqual(['t-3', 't-2']);
    expect(page.hasMore).toBe(true);
    expect(page.results[0].traceName).toBe('third');
    const rest = await query({ kind: 'TracesQuery', limit: 2, offset: 2 });
    expect(rest.hasMore).toBe(false);
    const [t1] = rest.results;
    expect(t1).toMatchObject({
      id: 't-1',
      traceName: 'chat turn',
      // The trace event's own latency wins over the generations' 1.5 + 2.
      totalLatency: 4.5,
      inputTokens: 3000,
      outputTokens: 500,
      inputState: { q: 'hi' },
      outputState: 'done',
      errorCount: 1,
      events: [],
    });
    // Created when its first event happened (the trace event, at 1 s).
    expect(new Date(t1.createdAt).getTime()).toBe(new Date(at(1)).getTime());
    // gpt-4o-mini: 3000 × 0.15/M in, 500 × 0.60/M out.
    expect(t1.inputCost).toBeCloseTo(0.00045, 12);
    expect(t1.outputCost).toBeCloseTo(0.0003, 12);
    expect(t1.totalCost).toBeCloseTo(0.00075, 12);
    expect(t1.person).toMatchObject({ distinct_id: 'ada', properties: { email: 'ada@example.com' } });
    // t-2 has no trace event: latency is its generations' sum.
    expect(page.results[1].totalLatency).toBe(0.25);
    // The fields of PostHog's LLMTrace (schema-general.ts), no more, no fewer.
    expect(Object.keys(t1).sort()).toEqual(
      [
        'aiSessionId',
        'createdAt',
        'errorCount',
        'events',
        'id',
        'inputCost',
        'inputState',
        'inputTokens',
        'outputCost',
        'outputState',
        'outputTokens',
        'person',
        'totalCost',
        'totalLatency',
        'traceName',
      ].sort(),
    );
    expect(Object.keys(t1.person).sort()).toEqual(['created_at', 'distinct_id', 'properties', 'uuid']);
    expect(t1.aiSessionId).toBe('conversation-9');
    expect(page.results[1].aiSessionId).toBeNull();
  });

  it("answers a personless trace's person as PostHog does: strings, never nulls", async () => {
    const page = await query({ kind: 'TracesQuery', limit: 10 });
    const t0 = page.results.find((t: { id: string }) => t.id === 't-0');
    expect(t0.person).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      distinct_id: 'anon-llm',
      created_at: '1970-01-01T00:00:00Z',
      properties: {},
    });
    const events = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: {
        query: {
          kind: 'HogQLQuery',
          query: "select toString(person_id) from events where distinct_id = 'anon-llm'",
        },
      },
    });
    expect(events.json().results).toEqual([[t0.person.uuid]]);
  });

  it('filters traces by an event property and by date range', async () => {
    const red = await query({
      kind: 'TracesQuery',
      properties: [{ type: 'event', key: 'team', value: 'red', operator: 'exact' }],
    });
    expect(red.results.map((t: { id: string }) => t.id)).toEqual(['t-1']);
    // Filtering picks traces; the trace's sums still count all its events.
    expect(red.results[0].inputTokens).toBe(3000);
    const none = await query({ kind: 'TracesQuery', dateRange: { date_from: '-7d', date_to: '-1d' } });
    expect(none.results).toEqual([]);
  });

  it('returns one trace with its events in time order (TraceQuery)', async () => {
    const res = await query({ kind: 'TraceQuery', traceId: 't-1' });
    expect(res.results).toHaveLength(1);
    const trace = res.results[0];
    expect(trace.id).toBe('t-1');
    expect(trace.events.map((e: { event: string }) => e.event)).toEqual([
      '$ai_trace',
      '$ai_span',
      '$ai_generation',
      '$ai_generation',
    ]);
    expect(trace.events[2].properties).toMatchObject({ $ai_parent_id: 's-1', $ai_input_tokens: 1000 });
    expect(trace.events[2].properties.$ai_total_cost_usd).toBeCloseTo(0.00045, 12);
    expect((await query({ kind: 'TraceQuery', traceId: 'nope' })).results).toEqual([]);
    const bad = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'TraceQuery' } },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("answers the MCP cost tool's query (get-llm-total-costs-for-project) with the stored costs", async () => {
    // The TrendsQuery @posthog/agent-toolkit's tool sends, as it sends it.
    const res = await query({
      kind: 'TrendsQuery',
      dateRange: { date_from: '-6d', date_to: null },
      filterTestAccounts: true,
      series: [
        {
          event: '$ai_generation',
          name: '$ai_generation',
          math: 'sum',
          math_property: '$ai_total_cost_usd',
          kind: 'EventsNode',
        },
      ],
      breakdownFilter: { breakdown_type: 'event', breakdown: '$ai_model' },
    });
    expect(res.results).toHaveLength(1);
    expect(res.results[0].breakdown_value).toBe('gpt-4o-mini');
    // 0.00075 (t-1) + 2 × (10 × 0.15/M + 10 × 0.60/M).
    expect(res.results[0].count).toBeCloseTo(0.000765, 10);
  });
});
