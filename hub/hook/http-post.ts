/**
 * One HTTP/1.1 POST for the hook bridge, written on a plain TCP socket. Why not node:http: loading
 * it (its agent, parser glue, server half and their streams) costs every hook call about 7 ms of
 * start-up on this machine, a fifth of the room a 2x-of-bare-node target leaves (docs/hooks.md, "Wall time").
 * The exchange is narrow and ours at both ends: one POST with `Connection: close`, so the answer
 * is whatever the hub writes before it closes: a status line, headers, and a body framed by
 * Content-Length or chunked. An https hub goes through node:https, loaded only then (TLS costs far
 * more than the parser there).
 */
import { connect } from 'node:net';

export interface HttpAnswer {
  status: number;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Undoes chunked transfer coding; throws on a malformed or cut chunk stream. */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) throw new Error('the answer ends inside a chunk header');
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0) throw new Error('the answer has a malformed chunk size');
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (start + size > data.length) throw new Error('the answer ends inside a chunk');
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}

/** Reads a whole HTTP/1.x answer; undefined while it is still incomplete (or not HTTP at all). */
export function parseHttpAnswer(data: Buffer, complete: boolean): HttpAnswer | undefined {
  const headerEnd = data.indexOf(HEADER_END);
  if (headerEnd === -1) return undefined;
  const [statusLine = '', ...headerLines] = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return undefined;
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = data.subarray(headerEnd + HEADER_END.length);
  if (/\bchunked\b/i.test(headers.get('transfer-encoding') ?? '')) {
    try {
      return { status: Number(status), body: dechunk(rest).toString('utf8') };
    } catch (error) {
      if (complete) throw error;
      return undefined;
    }
  }
  const length = headers.get('content-length');
  if (length !== undefined) {
    if (rest.length < Number(length)) return undefined;
    return { status: Number(status), body: rest.subarray(0, Number(length)).toString('utf8') };
  }
  // neither: the body runs to the end of the connection
  return complete ? { status: Number(status), body: rest.toString('utf8') } : undefined;
}

async function postOverTls(target: URL, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

/**
 * POSTs `body` to `target` and resolves with the answer; rejects when there is none (refused,
 * reset before an answer, not HTTP, nothing within `timeoutMs`, or `signal` aborted: the connection
 * is closed), the error's `code` set where the system gave one.
 */
export function postJson(target: URL, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> {
  const allHeaders: Record<string, string> = { host: target.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers };
  // a line break in a value (a pasted token) would end the header early: refused, as node:http does
  const broken = Object.entries(allHeaders).find(([, value]) => /[\r\n]/.test(value));
  if (broken) return Promise.reject(new Error(`the ${broken[0]} header holds a line break`));
  if (signal?.aborted) return Promise.reject(new Error('aborted'));
  if (target.protocol === 'https:') return postOverTls(target, allHeaders, body, timeoutMs, signal);
  if (target.protocol !== 'http:') return Promise.reject(new Error(`${target.protocol} is not http: or https:`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      let answer: HttpAnswer | undefined;
      try {
        answer = parseHttpAnswer(Buffer.concat(chunks), true);
      } catch (parseError) {
        return reject(parseError);
      }
      // an answer the hub finished before the connection broke still counts (a 413 written
      // before the whole request was read, then a reset)
      if (answer !== undefined) resolve(answer);
      else reject(error ?? new Error('the connection closed without an HTTP answer'));
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const port = Number(target.port || 80);
    // a URL keeps an IPv6 host in brackets; the socket wants it bare
    const socket = connect({ host: target.hostname.replace(/^\[(.*)\]$/, '$1'), port });
    const head = `POST ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(allHeaders)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;
    // write, not end: a request half-closed before its answer is taken by Node's HTTP server for
    // an aborted one, and sometimes dropped unanswered; the hub closes after answering (Connection: close)
    socket.on('connect', () => socket.write(head + body));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // a hub that keeps the connection open after its answer (a proxy ignoring close) is not waited on
      if (parseHttpAnswer(Buffer.concat(chunks), false) !== undefined) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error) => finish(error));
    signal?.addEventListener('abort', () => finish(new Error('aborted')), { once: true });
  });
}
