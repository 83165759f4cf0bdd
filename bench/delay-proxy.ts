/**
 * A TCP proxy that holds every chunk a fixed time in each direction: hub processes reach
 * PostgreSQL through it, so a round trip costs what it would between two machines (bench:scale-out).
 * The delay can change between scenarios; order is kept (one FIFO per direction).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { PreciseWake } from './precise-wake.js';

export interface DelayProxy {
  port: number;
  /** Milliseconds added to each direction; changeable at any time. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startDelayProxy(target: { host: string; port: number }, delayMs = 0): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const proxy: DelayProxy = { port: 0, delayMs, close: async () => undefined };
  const wake = new PreciseWake();
  const forward = (from: Socket, to: Socket) => {
    // FIFO of chunks with the time each is due; Node's timers fire at whole milliseconds, so the
    // last part of a wait under 1 ms is slept by PreciseWake (a sub-millisecond delay stays exact)
    const queue: { due: number; chunk: Buffer }[] = [];
    let pumping = false;
    const pump = () => {
      const now = performance.now();
      while (queue.length > 0 && queue[0]!.due <= now) {
        const { chunk } = queue.shift()!;
        if (to.writable) to.write(chunk);
      }
      if (queue.length === 0) return void (pumping = false);
      const wait = queue[0]!.due - now;
      if (wait >= 1) setTimeout(pump, Math.floor(wait));
      else wake.at(queue[0]!.due, pump);
    };
    from.on('data', (chunk: Buffer) => {
      if (proxy.delayMs <= 0 && queue.length === 0) return void to.write(chunk);
      queue.push({ due: performance.now() + proxy.delayMs, chunk });
      if (!pumping) {
        pumping = true;
        pump();
      }
    });
    // the end goes after the data still held
    from.on('end', () => setTimeout(() => to.end(), proxy.delayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), proxy.delayMs + 1));
  };
  const server: Server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect(target.port, target.host);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as { port: number }).port;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await wake.close();
  };
  return proxy;
}

/** The URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: { port: number }): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
