import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of the test Redis, for one hub process: `hold()` stops passing on what that
 * process sends (its PUBLISHes to the other processes), as a slow or cut link would; `release()`
 * sends it on. Nothing of the hub is replaced: the process talks to a real Redis through it.
 */
export interface RedisProxy {
  url: string;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(redisUrl: string): Promise<RedisProxy> {
  const target = new URL(redisUrl);
  const links: { client: Socket; upstream: Socket; held: Buffer[] }[] = [];
  let holding = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    const link = { client, upstream, held: [] as Buffer[] };
    links.push(link);
    client.on('data', (chunk: Buffer) => (holding ? link.held.push(chunk) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const auth = target.username || target.password ? `${target.username}:${target.password}@` : '';
  return {
    url: `${target.protocol}//${auth}127.0.0.1:${port}${target.pathname}`,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const link of links) for (const chunk of link.held.splice(0)) if (!link.upstream.destroyed) link.upstream.write(chunk);
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
