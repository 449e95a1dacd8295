import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tokenHint } from '../../src/capture/token-hint.js';
import { turn, waitingTurns } from '../../src/capture/turns.js';
import { GROUP_BYTES, takeGroup } from '../../src/domain/ingest/journal-sink.js';
import { createGate } from '../../src/domain/slices.js';

/** The parts of capture's fairness between projects (issue 29; docs/isolation.md, "Capture"). */
describe('turns of the event loop', () => {
  it('runs one slice per turn, projects in turn, each project first come first served', async () => {
    const order: string[] = [];
    const worker = async (key: string, name: string, slices: number) => {
      for (let i = 0; i < slices; i++) {
        await turn(key);
        order.push(name);
      }
    };
    // Project a has three requests slicing, b one: b still gets every other turn.
    await Promise.all([
      worker('a', 'a1', 3),
      worker('a', 'a2', 3),
      worker('a', 'a3', 3),
      worker('b', 'b', 3),
    ]);
    expect(order.slice(0, 6)).toEqual(['a1', 'b', 'a2', 'b', 'a3', 'b']);
    expect(waitingTurns()).toBe(0);
  });

  it('lets I/O in between slices', async () => {
    let slices = 0;
    let timerAt = -1;
    const busy = (async () => {
      for (let i = 0; i < 50; i++) {
        await turn('a');
        const until = performance.now() + 1;
        while (performance.now() < until) {} // a 1 ms slice
        slices++;
      }
    })();
    setTimeout(() => {
      timerAt = slices;
    }, 0);
    await busy;
    // The timer fired within a couple of slices, not after all 50 (as one long task would).
    expect(timerAt).toBeGreaterThanOrEqual(0);
    expect(timerAt).toBeLessThan(10);
  });
});

describe('the capture gate', () => {
  it('keeps a slot for another project however many one project has waiting', async () => {
    const gate = createGate(2);
    const order: string[] = [];
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const job = (key: number, name: string) =>
      gate.run(key, async () => {
        order.push(name);
        await hold;
      });
    const a = Array.from({ length: 6 }, (_, i) => job(1, `a${i}`));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a0', 'a1']);
    // B arrives after A's six: it gets the slot A cannot take, at once.
    const b = job(2, 'b');
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a0', 'a1', 'b']);
    release();
    await Promise.all([...a, b]);
    expect(order.slice(3)).toEqual(['a2', 'a3', 'a4', 'a5']);
  });
});

describe("the journal's append groups", () => {
  const entry = (teamId: number, bytes: number, name: string) => ({
    teamId,
    name,
    entry: { parts: [Buffer.alloc(bytes)], rows: 1 },
  });

  it('take everything that fits, and projects in turn beyond it', () => {
    const small = [entry(1, 100, 'a1'), entry(2, 100, 'b1'), entry(1, 100, 'a2')];
    expect(takeGroup(small)).toBe(small);
    const big = GROUP_BYTES / 2;
    const flood = [
      entry(1, big, 'a1'),
      entry(1, big, 'a2'),
      entry(1, big, 'a3'),
      entry(1, big, 'a4'),
      entry(2, 10, 'b1'),
      entry(2, 10, 'b2'),
    ];
    // Every project's first, then seconds until the group holds GROUP_BYTES.
    expect(takeGroup(flood).map((w) => w.name)).toEqual(['a1', 'b1', 'a2']);
    // One project alone: about GROUP_BYTES, at least one request however large.
    expect(takeGroup([entry(1, GROUP_BYTES * 3, 'x'), entry(1, 10, 'y')]).map((w) => w.name)).toEqual(['x']);
  });
});

describe('the project hint', () => {
  const post = (body: Buffer, extra: Record<string, unknown> = {}) => ({
    method: 'POST' as const,
    query: {},
    body,
    ...extra,
  });
  const batch = JSON.stringify({
    api_key: 'phc_node',
    batch: Array.from({ length: 2000 }, (_, i) => ({ event: 'e', distinct_id: `d${i}` })),
  });
  const jsEvents = JSON.stringify([
    { event: '$pageview', properties: { $os: 'Linux', $current_url: 'https://x.test/', token: 'phc_js' } },
  ]);

  it("finds posthog-node's api_key and posthog-js's token, in JSON or gzip, or the query's", () => {
    expect(tokenHint(post(Buffer.from(batch)))).toBe('phc_node');
    expect(tokenHint(post(gzipSync(batch)))).toBe('phc_node');
    expect(tokenHint(post(gzipSync(batch), { contentEncoding: 'gzip' }))).toBe('phc_node');
    expect(tokenHint(post(gzipSync(jsEvents)))).toBe('phc_js');
    expect(tokenHint({ method: 'GET', query: { token: 'phc_q', data: 'x' }, body: undefined })).toBe('phc_q');
  });

  it('gives none for what it cannot read cheaply', () => {
    expect(tokenHint(post(Buffer.from(`data=${Buffer.from(batch).toString('base64')}`)))).toBeUndefined();
    expect(tokenHint(post(Buffer.from([0x1f, 0x8b, 1, 2, 3])))).toBeUndefined();
    expect(tokenHint(post(Buffer.from(batch), { contentEncoding: 'br' }))).toBeUndefined();
    expect(tokenHint(post(Buffer.from(batch), { contentEncoding: 'zstd' }))).toBeUndefined();
    // A gzip bomb's first KiB inflates past the hint's cap: no hint, and no large output.
    expect(tokenHint(post(gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20))))).toBeUndefined();
  });
});
