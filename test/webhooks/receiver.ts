/**
 * A webhook receiver on loopback, as a real one would be written: it reads the raw body, checks the
 * signature against the secret it was given, and answers what the test's `answer` says (a status,
 * or 'hang': never answer). Every request is recorded, answered or not.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { signatureMatches } from '../../hub/webhooks/payload.js';
import { WEBHOOK_HEADERS } from '../../shared/protocol/webhooks.js';

export interface ReceivedPost {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  /** The signature checked against the secret known when the POST arrived. */
  signed: boolean;
  /** The event id the header carries. */
  eventId: string;
  answered: number | 'hang';
}

export interface Receiver {
  url: string;
  posts: ReceivedPost[];
  /** The posts answered 2xx, once per event id (what a receiver that drops duplicates keeps). */
  accepted(): ReceivedPost[];
  secret: string | undefined;
  /** Decides each answer; called with the 0-based index of the request. Default: 200. */
  answer: (index: number, post: ReceivedPost) => number | 'hang';
  close(): Promise<void>;
}

const receivers: Receiver[] = [];

/** Closes every receiver a test started (hung responses included). */
export function closeReceiversAfterEach(): void {
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    posts: [],
    secret: undefined,
    answer: () => 200,
    accepted() {
      const seen = new Set<string>();
      return receiver.posts.filter((post) => {
        if (post.answered === 'hang' || post.answered < 200 || post.answered >= 300 || seen.has(post.eventId)) return false;
        seen.add(post.eventId);
        return true;
      });
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = request.headers[WEBHOOK_HEADERS.signature];
      const post: ReceivedPost = {
        headers: request.headers,
        raw: raw.toString(),
        body: JSON.parse(raw.toString()) as Record<string, unknown>,
        signed: receiver.secret !== undefined && signatureMatches(receiver.secret, raw, typeof header === 'string' ? header : undefined),
        eventId: String(request.headers[WEBHOOK_HEADERS.eventId]),
        answered: 200,
      };
      post.answered = receiver.answer(receiver.posts.length, post);
      receiver.posts.push(post);
      if (post.answered === 'hang') {
        hanging.push(response);
        return;
      }
      response.writeHead(post.answered, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port }, resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receivers.push(receiver);
  return receiver;
}
