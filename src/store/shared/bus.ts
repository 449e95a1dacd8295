import { EventEmitter } from 'node:events';

/**
 * Messages between API nodes (e.g. "this key was revoked"). In memory it only reaches this process;
 * with Redis every node sharing `prefix` hears it, its sender included.
 */
export interface Bus {
  kind: 'memory' | 'redis';
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, handler: (message: unknown) => void): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function memoryBus(): Bus {
  const events = new EventEmitter();
  return {
    kind: 'memory',
    async publish(channel, message) {
      events.emit(channel, message);
    },
    async subscribe(channel, handler) {
      events.on(channel, handler);
    },
    async ping() {},
    async close() {
      events.removeAllListeners();
    },
  };
}

export async function redisBus(url: string, prefix: string): Promise<Bus> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false };
  // Loaded only with REDIS_URL: a single node never pays for the client.
  const { Redis } = await import('ioredis');
  const pub = new Redis(url, options);
  const sub = new Redis(url, options);
  await Promise.all([pub.connect(), sub.connect()]);
  const handlers = new Map<string, Array<(message: unknown) => void>>();
  sub.on('message', (channel: string, raw: string) => {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });
  return {
    kind: 'redis',
    async publish(channel, message) {
      await pub.publish(prefix + channel, JSON.stringify(message));
    },
    async subscribe(channel, handler) {
      const full = prefix + channel;
      if (!handlers.has(full)) {
        handlers.set(full, []);
        await sub.subscribe(full);
      }
      handlers.get(full)!.push(handler);
    },
    async ping() {
      await pub.ping();
    },
    async close() {
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}
