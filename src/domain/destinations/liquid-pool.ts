import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Liquid runs in worker threads, never on the event loop: a hostile template that runs to its
 * render limit (or past it, inside one filter call) used to hold every tenant's requests and
 * deliveries for that long. The pool's workers are started on the first Liquid template, do one
 * job at a time, and are cut off from the main thread: a job not answered within its limit (plus a
 * grace) terminates its worker, and a worker past its heap limit dies alone. Either way the job
 * fails and a fresh worker takes the next one.
 */
export interface LiquidPoolOptions {
  /** Worker threads (default 2: one hostile template does not stall every other one). */
  size?: number;
  /** Jobs waiting for a worker; past it a job fails at once as busy instead of holding memory. */
  queueLimit?: number;
  /**
   * The longest a job waits for a worker before it fails as busy: hostile templates holding every
   * worker must not make a delivery outlive its lease (60 s) or an invocation hang.
   */
  maxWaitMs?: number;
  /** Liquid's own render limit, and the wall-clock limit of a job once a worker has it. */
  limitMs?: number;
  /** Added to `limitMs` before the worker is terminated: Liquid's own limit answers first. */
  graceMs?: number;
  /**
   * Each worker's V8 heap (old generation): an allocation bomb kills only that worker. It must
   * hold the largest single allocation `memoryLimit` allows (an array of 10 M numbers is 80 MB, and
   * more while it grows): Node stops a worker that reaches its limit, but one allocation far past
   * it aborts the whole process. Measured: 64 MB aborts on `(1..9999999)`, 128 MB holds it.
   */
  maxOldGenerationSizeMb?: number;
  /** Liquid's own allocation accounting (strings and arrays its filters build). */
  memoryLimit?: number;
}

/** Why a job failed: its message reads after "Liquid template failed: " (liquidjs' own wording). */
export class LiquidJobError extends Error {}

/** The queue is full: the template itself may be fine, and trying later may work. */
export class LiquidBusyError extends LiquidJobError {}

export interface LiquidPool {
  /** Renders `template` over `globals` (cloned into the worker). Rejects with LiquidJobError. */
  render(template: string, globals: Record<string, unknown>): Promise<string>;
  /** Parses `template` only (a save's check). Rejects with LiquidJobError. */
  parse(template: string): Promise<void>;
  /** Workers started so far (tests: a killed worker is replaced). */
  readonly started: number;
  close(): Promise<void>;
}

export const LIMIT_EXCEEDED = 'template render limit exceeded';
export const PARSE_LIMIT_EXCEEDED = 'template parse time limit exceeded';
export const OUT_OF_MEMORY = 'template memory limit exceeded (the renderer ran out of memory)';
export const BUSY = 'too many Liquid templates waiting to render; try again later';

const MAX_TEMPLATE = 64 * 1024;

// CommonJS, evaluated in the worker (an eval'd source works the same under tsx, vitest and the
// esbuild bundle, where a worker file next to the source would not exist). No file system:
// `include` / `render` / `layout` find nothing.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Liquid } = require(workerData.liquidjs);
const liquid = new Liquid({
  parseLimit: workerData.maxTemplate,
  renderLimit: workerData.limitMs,
  memoryLimit: workerData.memoryLimit,
  ownPropertyOnly: true,
  strictFilters: true,
  cache: 100,
  relativeReference: false,
  fs: {
    exists: async () => false,
    existsSync: () => false,
    readFile: async () => '',
    readFileSync: () => '',
    resolve: (_dir, file) => file,
    contains: async () => false,
  },
});
const firstLine = (e) => String((e && e.message) || e).split('\\n')[0];
parentPort.on('message', async (job) => {
  try {
    if (job.parse) {
      liquid.parse(job.template);
      parentPort.postMessage({ id: job.id, out: '' });
    } else {
      const out = await liquid.parseAndRender(job.template, job.globals);
      parentPort.postMessage({ id: job.id, out });
    }
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: firstLine(error) });
  }
});
parentPort.postMessage({ ready: true });
`;

interface Job {
  id: number;
  template: string;
  globals: Record<string, unknown> | undefined;
  resolve(out: string): void;
  reject(error: Error): void;
  waiting: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

export function createLiquidPool(options: LiquidPoolOptions = {}): LiquidPool {
  const size = Math.max(1, options.size ?? 2);
  const queueLimit = options.queueLimit ?? 1000;
  const limitMs = options.limitMs ?? 1000;
  const graceMs = options.graceMs ?? 250;
  const maxWaitMs = options.maxWaitMs ?? 10_000;
  const workerData = {
    liquidjs: createRequire(import.meta.url).resolve('liquidjs'),
    limitMs,
    memoryLimit: options.memoryLimit ?? 10_000_000,
    maxTemplate: MAX_TEMPLATE,
  };
  const resourceLimits = {
    maxOldGenerationSizeMb: options.maxOldGenerationSizeMb ?? 128,
    maxYoungGenerationSizeMb: 16,
    stackSizeMb: 4,
  };
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let nextId = 0;
  let started = 0;
  let closed = false;

  function settle(slot: Slot, error?: Error, out?: string): void {
    const job = slot.job;
    slot.job = undefined;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    if (job) {
      if (error) job.reject(error);
      else job.resolve(out ?? '');
    }
  }

  /** A worker gone (terminated, out of memory, crashed): its job fails, another takes the queue. */
  function drop(slot: Slot, error: Error): void {
    if (!slots.delete(slot)) return;
    const booting = !slot.ready;
    settle(slot, error);
    void slot.worker.terminate();
    // A worker that dies while starting would die again: the waiting jobs fail rather than loop.
    if (booting)
      for (const job of queue.splice(0)) {
        clearTimeout(job.waiting);
        job.reject(error);
      }
    pump();
  }

  function spawn(): void {
    started++;
    // No inherited flags: `--input-type=module` would read the source as ESM, a loader (tsx) would
    // only slow the start.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData, resourceLimits, execArgv: [] });
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined };
    slots.add(slot);
    worker.on('message', (m: { ready?: boolean; id?: number; out?: string; error?: string }) => {
      if (m.ready) {
        slot.ready = true;
        pump();
        return;
      }
      if (!slot.job || m.id !== slot.job.id) return;
      settle(slot, m.error === undefined ? undefined : new LiquidJobError(m.error), m.out);
      pump();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      drop(
        slot,
        new LiquidJobError(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? OUT_OF_MEMORY : `the renderer failed: ${error.message}`,
        ),
      );
    });
    worker.on('exit', (code) => drop(slot, new LiquidJobError(`the renderer stopped (exit code ${code})`)));
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
  }

  /**
   * Gives waiting jobs to idle workers, and starts workers while jobs wait and the pool is short.
   * A worker with work keeps the process alive (a script awaiting a render); an idle one does not.
   */
  function pump(): void {
    if (closed) return;
    for (const slot of slots) {
      if (!queue.length) break;
      if (!slot.ready || slot.job) continue;
      const job = queue.shift()!;
      clearTimeout(job.waiting);
      slot.job = job;
      const limit = job.globals === undefined ? PARSE_LIMIT_EXCEEDED : LIMIT_EXCEEDED;
      slot.timer = setTimeout(() => drop(slot, new LiquidJobError(limit)), limitMs + graceMs);
      slot.worker.postMessage({
        id: job.id,
        template: job.template,
        globals: job.globals,
        parse: job.globals === undefined,
      });
    }
    let wanted = queue.length - [...slots].filter((s) => !s.ready).length;
    while (wanted-- > 0 && slots.size < size) spawn();
    for (const slot of slots) {
      if (slot.job || (!slot.ready && queue.length)) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  function submit(template: string, globals: Record<string, unknown> | undefined): Promise<string> {
    if (closed) return Promise.reject(new LiquidJobError('the renderer is shut down'));
    if (template.length > MAX_TEMPLATE) return Promise.reject(new LiquidJobError('The template is too long'));
    if (queue.length >= queueLimit) return Promise.reject(new LiquidBusyError(BUSY));
    return new Promise<string>((resolve, reject) => {
      const job: Job = { id: nextId++, template, globals, resolve, reject, waiting: undefined! };
      job.waiting = setTimeout(() => {
        const at = queue.indexOf(job);
        if (at < 0) return;
        queue.splice(at, 1);
        reject(new LiquidBusyError(BUSY));
      }, maxWaitMs);
      queue.push(job);
      pump();
    });
  }

  return {
    render: (template, globals) => submit(template, globals),
    parse: async (template) => {
      await submit(template, undefined);
    },
    get started() {
      return started;
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new LiquidJobError('the renderer is shut down');
      for (const job of queue.splice(0)) {
        clearTimeout(job.waiting);
        job.reject(error);
      }
      const all = [...slots];
      slots.clear();
      for (const slot of all) settle(slot, error);
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}
