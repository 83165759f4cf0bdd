/**
 * A model server that refuses every request with one HTTP status and the vendor's error body
 * (Anthropic's `{ type: 'error', error }`, OpenAI's `{ error }`): an invalid key, a rate limit, an
 * overloaded model, as the agent's own client sees them. And a port where nothing listens (a model
 * server out of reach).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RefusingServer {
  url: string;
  /** How many requests it refused. */
  requests: () => number;
  close(): Promise<void>;
}

export async function startRefusingServer(status: number, message: string): Promise<RefusingServer> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(status, { 'content-type': 'application/json' });
      // both vendors' shapes in one body: each client reads its own keys
      res.end(JSON.stringify({ type: 'error', error: { type: status === 401 ? 'authentication_error' : 'rate_limit_error', message, code: status === 401 ? 'invalid_api_key' : 'rate_limit_exceeded' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL where nothing listens: a port taken from the kernel and released. */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
