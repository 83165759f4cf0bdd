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
export async function startPgRelay(
  databaseUrl: string,
  onClient: (client: Socket, upstream: Socket) => void,
  /** `answerDelayMs`: the server's bytes reach the client that much later; `onAnswer` sees each chunk as it is passed on. */
  options: { answerDelayMs?: number; onAnswer?: (client: Socket, chunk: Buffer) => void } = {},
): Promise<PgRelay> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    onClient(client, upstream);
    const answer = (chunk: Buffer) => {
      options.onAnswer?.(client, chunk);
      if (client.writable) client.write(chunk);
    };
    upstream.on('data', (chunk: Buffer) => (options.answerDelayMs ? setTimeout(answer, options.answerDelayMs, chunk) : answer(chunk)));
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

/**
 * A relay that, once armed, passes on the next transaction's COMMIT and then cuts that connection
 * before the server's answer can come back: the server commits, the hub never hears it (a network
 * cut at the worst moment). The armed transaction is the next to send BEGIN; with `holdMs`, its bytes
 * are held that long on their way from then on, so another batch can queue while it travels.
 */
export async function startCommitCutter(databaseUrl: string, options: { holdMs?: number } = {}) {
  let armed = false;
  let target: Socket | undefined;
  let cuts = 0;
  let begun = () => undefined as void;
  const relay = await startPgRelay(databaseUrl, (client, upstream) => {
    client.on('data', (chunk: Buffer) => {
      if (armed && target === undefined && chunk.includes('hub_begin')) {
        target = client;
        begun();
      }
      const cut = armed && target === client;
      const pass = () => {
        upstream.write(chunk);
        if (cut && chunk.includes('hub_commit')) {
          armed = false;
          target = undefined;
          cuts++;
          // the server still reads and runs what it was sent; its answer goes nowhere
          client.destroy();
        }
      };
      if (cut && options.holdMs) setTimeout(pass, options.holdMs);
      else pass();
    });
    client.on('close', () => setTimeout(() => upstream.end(), 200));
  });
  return {
    ...relay,
    /** Arms the cut; resolves once the armed transaction has sent its BEGIN. */
    arm: () => {
      armed = true;
      return new Promise<void>((resolve) => (begun = resolve));
    },
    cuts: () => cuts,
  };
}
