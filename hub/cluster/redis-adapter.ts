import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';

export interface RedisAdapterHandle {
  /** Disconnects both Redis clients; close the Socket.IO server first. */
  close(): Promise<void>;
}

/** `redis://host:port` of a Redis URL: never its user or password, which logs and errors must not show. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'redis://(an unparsable URL)';
  }
}

/**
 * A client that resolves once Redis answers, or rejects with what went wrong the first time.
 * After that, ioredis reconnects by itself (with backoff) for as long as the hub runs.
 */
async function connectClient(url: string, role: 'pub' | 'sub', log: Logger): Promise<Redis> {
  const where = describeRedisUrl(url);
  const client = new Redis(url, { lazyConnect: true, connectionName: `session-hub-${role}` });
  let lastError: Error | undefined;
  let up = false;
  // one line per outage, not one per reconnect attempt
  client.on('error', (error: Error) => {
    lastError = error;
    if (up) log.warn({ redis: where, role, err: error.message }, 'lost Redis; reconnecting');
    up = false;
  });
  client.on('ready', () => {
    if (lastError && !up) log.info({ redis: where, role }, 'Redis is back');
    up = true;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = (lastError ?? (error as Error)).message || String(error);
    throw new Error(`cannot reach Redis at ${where}: ${reason}`);
  }
  return client;
}

/**
 * Publishes through `client` never reject unhandled: the adapter ignores the promise of every
 * PUBLISH it sends, and after a long Redis outage ioredis rejects the queued ones — an unhandled
 * rejection would end the process. Such a loss is logged; the sequencers read the gap from the log.
 */
function catchPublishErrors(client: Redis, log: Logger, where: string): void {
  const publish = client.publish.bind(client) as (...args: unknown[]) => Promise<number>;
  (client as unknown as { publish: (...args: unknown[]) => Promise<number> }).publish = (...args: unknown[]) => {
    const sent = publish(...args);
    sent.catch((error: Error) => log.warn({ redis: where, err: error.message }, 'a message to the other hub processes was lost'));
    return sent;
  };
}

/** What this needs of a Socket.IO server, whatever its event maps. */
export interface AdaptableServer {
  adapter(factory: ReturnType<typeof createAdapter>): unknown;
}

/** Redis pub/sub channels are server-wide (not per database): clusters sharing one Redis need their own. */
export const DEFAULT_CHANNEL_PREFIX = 'session-hub';

/**
 * Puts Socket.IO on the Redis adapter (pub/sub), so `serverSideEmit` reaches every hub process.
 * Call before the server accepts connections: the namespaces' adapters are replaced.
 */
export async function attachRedisAdapter(io: AdaptableServer, url: string, log: Logger, options: { key?: string } = {}): Promise<RedisAdapterHandle> {
  const where = describeRedisUrl(url);
  const clients: Redis[] = [];
  try {
    clients.push(await connectClient(url, 'pub', log));
    clients.push(await connectClient(url, 'sub', log));
  } catch (error) {
    for (const client of clients) client.disconnect();
    throw error;
  }
  const [pub, sub] = clients as [Redis, Redis];
  catchPublishErrors(pub, log, where);
  io.adapter(createAdapter(pub, sub, { key: options.key ?? DEFAULT_CHANNEL_PREFIX }));
  // the adapters subscribe on `sub` as they are made; a reply after them means they are listening
  await sub.ping();
  log.info({ redis: where }, 'broadcasting across hub processes through Redis');
  return {
    async close() {
      await Promise.all(
        clients.map((client) =>
          client.quit().then(
            () => undefined,
            () => client.disconnect(),
          ),
        ),
      );
    },
  };
}
