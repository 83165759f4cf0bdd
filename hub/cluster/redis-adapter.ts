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

const OWN_REQUEST_START = Buffer.from('{"uid":"');

/**
 * Drops a request this process published itself (a `serverSideEmit`: every committed batch) before
 * the adapter reads it. Redis sends a publish to every subscriber, the publisher included, and the
 * adapter JSON-parses each request before it checks whose it is (it then ignores its own): the whole
 * batch parsed for nothing, on the path of every write. The adapter writes every request as
 * `{"uid":"<its uid>",…` (8.x), so the sender is read from the first bytes. The messages themselves
 * are unchanged: hubs of other versions in the same cluster hear this one, and it hears them.
 */
function skipOwnRequests(sub: Redis, requestChannelStart: Buffer, ownUids: ReadonlySet<string>): void {
  const isOwnRequest = (channel: unknown, message: unknown): boolean => {
    if (!Buffer.isBuffer(channel) || !Buffer.isBuffer(message)) return false;
    if (channel.length < requestChannelStart.length || channel.compare(requestChannelStart, 0, requestChannelStart.length, 0, requestChannelStart.length) !== 0) return false;
    if (message.compare(OWN_REQUEST_START, 0, OWN_REQUEST_START.length, 0, OWN_REQUEST_START.length) !== 0) return false;
    const end = message.indexOf(0x22, OWN_REQUEST_START.length); // the closing quote
    return end > 0 && ownUids.has(message.toString('latin1', OWN_REQUEST_START.length, end));
  };
  const emit = sub.emit.bind(sub) as (event: string | symbol, ...args: unknown[]) => boolean;
  (sub as unknown as { emit: typeof emit }).emit = (event, ...args) => {
    if (event === 'messageBuffer' && isOwnRequest(args[0], args[1])) return false;
    return emit(event, ...args);
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
  const key = options.key ?? DEFAULT_CHANNEL_PREFIX;
  // one adapter (one uid) per namespace of the server, made as each namespace is
  const ownUids = new Set<string>();
  const makeAdapter = createAdapter(pub, sub, { key });
  skipOwnRequests(sub, Buffer.from(`${key}-request#`), ownUids);
  // Socket.IO calls it with `new`: a function, not an arrow
  io.adapter(function redisAdapter(nsp: Parameters<typeof makeAdapter>[0]) {
    const adapter = makeAdapter(nsp);
    ownUids.add(adapter.uid);
    return adapter;
  } as typeof makeAdapter);
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
