/**
 * The loopback HTTP server under each scripted model API (anthropic-server.ts, responses-server.ts):
 * it parses each request's JSON body, keeps what the API's script marks, and closes with every
 * connection the CLI left open.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface ModelServer {
  url: string;
  /** Every request body received (parsed JSON), in order. */
  requests: Record<string, unknown>[];
  /** When (Date.now()) each closing text was sent: a turn's last model step. */
  closedAt: number[];
  close(): Promise<void>;
}

/** One request as the API's script sees it: the body parsed ({} when it is not JSON), the path without its query. */
export interface ModelRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Starts a server on a loopback port whose every request `answer` writes; the script pushes to `requests` and `closedAt` itself. */
export async function startModelServer(
  answer: (request: ModelRequest, res: ServerResponse, kept: Pick<ModelServer, 'requests' | 'closedAt'>) => void,
): Promise<ModelServer> {
  const kept = { requests: [] as Record<string, unknown>[], closedAt: [] as number[] };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      answer({ method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, body }, res, kept);
    })();
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    ...kept,
    close: () => new Promise((resolveClose) => { server.closeAllConnections(); server.close(() => resolveClose()); }),
  };
}
