/**
 * A push service on loopback, as a browser's would act: it holds the browser's side of each
 * subscription (a P-256 key pair and auth secret made here, as a browser makes them), DECRYPTS every
 * push it receives (aes128gcm, RFC 8291, with the `http_ece` package) and checks its VAPID
 * Authorization header (RFC 8292: an ES256 JWT for this origin, signed by the key in `k=`). It answers
 * what the test's `answer` says (a status; default 201, as push services do).
 */
import { createECDH, createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ReturnType<typeof createECDH>; authSecret: string }): Buffer;
};

/** A browser's side of a subscription, and what it sends the hub (`subscription.toJSON()`). */
export interface BrowserSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  ecdh: ReturnType<typeof createECDH>;
}

export interface ReceivedPush {
  endpoint: string;
  headers: IncomingHttpHeaders;
  /** The decrypted payload, parsed. */
  payload: Record<string, unknown>;
  /** The VAPID JWT's claims, after its signature was checked against `k`. */
  vapid: { publicKey: string; claims: { aud: string; exp: number; sub: string } };
  answered: number;
}

export interface PushService {
  origin: string;
  pushes: ReceivedPush[];
  /** Requests that could not be decrypted or verified, with why. */
  refused: string[];
  subscribe(): BrowserSubscription;
  answer: (index: number, push: ReceivedPush) => number;
  close(): Promise<void>;
}

const services: PushService[] = [];

export function closePushServicesAfterEach(): void {
  afterEach(async () => {
    for (const service of services.splice(0)) await service.close();
  });
}

/** An uncompressed P-256 point (65 bytes, base64url) as a KeyObject. */
function p256Key(base64url: string) {
  const point = Buffer.from(base64url, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error(`k= is not an uncompressed P-256 key (${point.length} bytes)`);
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
}

/** Checks `Authorization: vapid t=<jwt>, k=<key>` (RFC 8292 section 3) and returns the key and claims. */
function checkVapid(header: string | undefined): ReceivedPush['vapid'] {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [, jwt, publicKey] = match as unknown as [string, string, string];
  const [head, body, signature] = jwt.split('.');
  if (!head || !body || !signature) throw new Error('the JWT has not three parts');
  if (JSON.parse(Buffer.from(head, 'base64url').toString()).alg !== 'ES256') throw new Error('the JWT is not ES256');
  const signed = verify('sha256', Buffer.from(`${head}.${body}`), { key: p256Key(publicKey), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!signed) throw new Error('the JWT signature does not match k=');
  return { publicKey, claims: JSON.parse(Buffer.from(body, 'base64url').toString()) };
}

export async function startPushService(): Promise<PushService> {
  const browsers = new Map<string, BrowserSubscription>();
  const service: PushService = {
    origin: '',
    pushes: [],
    refused: [],
    answer: () => 201,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const subscription = {
        endpoint: `${service.origin}/push/${randomUUID()}`,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
        ecdh,
      };
      browsers.set(new URL(subscription.endpoint).pathname, subscription);
      return subscription;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const browser = browsers.get(request.url ?? '');
        if (!browser) throw new Error(`no subscription at ${request.url}`);
        if (request.headers['content-encoding'] !== 'aes128gcm') throw new Error(`Content-Encoding ${request.headers['content-encoding']}`);
        const plain = ece.decrypt(Buffer.concat(chunks), { version: 'aes128gcm', privateKey: browser.ecdh, authSecret: browser.keys.auth });
        const push: ReceivedPush = {
          endpoint: browser.endpoint,
          headers: request.headers,
          payload: JSON.parse(plain.toString('utf8')),
          vapid: checkVapid(request.headers.authorization),
          answered: 0,
        };
        push.answered = service.answer(service.pushes.length, push);
        service.pushes.push(push);
        response.writeHead(push.answered).end();
      } catch (error) {
        service.refused.push(String(error));
        response.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  service.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  services.push(service);
  return service;
}
