import { connect, createServer, type Server, type Socket } from 'node:net';

export interface PgRelay {
  /** The database URL with the relay's loopback port in place of the server's. */
  url: string;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of a PostgreSQL server, for tests that fail the wire between the hub and its
 * database at a chosen moment. Each connection gets its own upstream socket; what the server
 * answers goes back to the client as is. `onClient` decides what the client's bytes do (it writes
 * them to `upstream`, holds them or cuts) and what the client closing does to the upstream.
 */
export async function startPgRelay(databaseUrl: string, onClient: (client: Socket, upstream: Socket) => void): Promise<PgRelay> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    onClient(client, upstream);
    upstream.on('data', (chunk: Buffer) => client.writable && client.write(chunk));
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
