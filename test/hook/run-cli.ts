import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { targetDir } from '../../hub/hook/spool-target.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';

/** A fixture's payloads: a plain array, or `{ source, payloads }` naming where they come from. */
export function fixture(name: string): Record<string, unknown>[] {
  const parsed = JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', name), 'utf8')) as Record<string, unknown>[] | { payloads: Record<string, unknown>[] };
  return Array.isArray(parsed) ? parsed : parsed.payloads;
}

/** Sends hook payloads one after another, as the agent does. */
export async function sendHooks(flavor: string, payloads: Record<string, unknown>[], env: Record<string, string>): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const payload of payloads) results.push(await runCli(['hook', flavor], { stdin: JSON.stringify(payload), env }));
  return results;
}

/** Reads a hub's session API with its dashboard token; `hub` is looked up per call (a fresh one per test). */
export function hubReader(hub: () => { url: string; tokens: { dashboard: string } }) {
  async function get<T>(path: string): Promise<T> {
    const response = await fetch(`${hub().url}${path}`, { headers: { authorization: `Bearer ${hub().tokens.dashboard}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }
  /** The one session with this tag (the agent's session id). */
  async function sessionByTag(tag: string): Promise<SessionSnapshot> {
    const { sessions } = await get<ListSessionsResponse>('/api/sessions?limit=500');
    const matching = sessions.filter((s) => s.tag === tag);
    expect(matching).toHaveLength(1);
    return matching[0]!;
  }
  return { get, sessionByTag };
}

/**
 * Per test: a fresh in-process hub and an empty spool directory for the hook processes, removed
 * after. Returns the hook processes' environment (for the hub, or `url` when given) and the readers.
 */
export function useBridgeHub(setUp: (started: { hub: TestHub; spoolDir: string }) => unknown = () => {}) {
  let started: { hub: TestHub; spoolDir: string } | undefined;
  beforeEach(async () => {
    started = { hub: await startTestHub(), spoolDir: mkdtempSync(join(tmpdir(), 'session-hub-spool-')) };
    setUp(started);
  });
  afterEach(async () => {
    if (!started) return;
    await started.hub.close();
    await removeSpool(started.spoolDir);
    started = undefined;
  });
  const current = () => {
    if (!started) throw new Error('useBridgeHub: the hub exists only while a test runs');
    return started;
  };
  const env = (url = current().hub.url): Record<string, string> => ({
    SESSION_HUB_URL: url,
    SESSION_HUB_TOKEN: current().hub.tokens.runner,
    SESSION_HUB_SPOOL_DIR: current().spoolDir,
  });
  return { env, ...hubReader(() => current().hub) };
}

/** The spool directory of the hub and token a hook environment names (docs/hooks.md, "The spool"). */
export function hubSpool(env: Record<string, string>): string {
  return targetDir(env.SESSION_HUB_SPOOL_DIR!, { url: env.SESSION_HUB_URL!, token: env.SESSION_HUB_TOKEN! });
}

/** Ends the drainers a test's hook calls left behind (detached processes retrying for minutes), in every hub's spool. */
export function stopDrainers(spoolDir: string): void {
  if (!existsSync(spoolDir)) return;
  const dirs = [spoolDir, ...readdirSync(spoolDir).filter((n) => n.startsWith('hub-')).map((n) => join(spoolDir, n))];
  for (const [dir, name] of dirs.flatMap((dir) => readdirSync(dir).filter((n) => /^drainer-.*\.lock$/.test(n)).map((n) => [dir, n] as const))) {
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, name), 'utf8').split('.')[0]);
    } catch {
      // the drainer finished and removed its lock since the listing (seen under a loaded full run)
      continue;
    }
    try {
      if (pid > 0) process.kill(pid, 'SIGKILL');
    } catch {
      // exited already
    }
  }
}

/**
 * Removes a test's spool directory. A drainer a hook process has just spawned may write its lock
 * and spool files after a first look (ENOTEMPTY): its drainers are stopped again before each retry.
 */
export async function removeSpool(spoolDir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    stopDrainers(spoolDir);
    try {
      rmSync(spoolDir, { recursive: true, force: true });
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A loopback URL where nothing listens: the hub is "down". */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  await new Promise((resolveClose) => server.close(resolveClose));
  return `http://127.0.0.1:${port}`;
}

/**
 * A URL in front of a hub that can be down and up again at the same address (a hub restarting):
 * closed, nothing listens (connection refused); open, each connection is piped to the hub; hung,
 * connections are accepted and never answered (`accepted` resolves at the first one).
 */
export async function gatedUrl(hubUrl: string): Promise<{ url: string; open: () => Promise<void>; close: () => Promise<void>; hang: () => Promise<void>; accepted: () => Promise<void>; holdAnswers: (hold: boolean) => void }> {
  const hub = new URL(hubUrl);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let hung = false;
  /** Requests reach the hub, but nothing it answers comes back: a client that never learns its request was taken. */
  let holding = false;
  let onAccept: () => void = () => undefined;
  let accepted = new Promise<void>((resolveAccept) => (onAccept = resolveAccept));
  const listen = (port: number) =>
    new Promise<Server>((resolveListen, reject) => {
      const created = createServer((socket) => {
        sockets.add(socket);
        if (hung) {
          onAccept();
          return;
        }
        const upstream = connect({ host: hub.hostname, port: Number(hub.port) });
        sockets.add(upstream);
        socket.pipe(upstream);
        upstream.on('data', (chunk: Buffer) => {
          if (!holding) socket.write(chunk);
        });
        const end = () => (socket.destroy(), upstream.destroy());
        socket.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => resolveListen(created));
    });
  server = await listen(0);
  const port = (server.address() as { port: number }).port;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    const closing = server;
    server = undefined;
    if (closing) await new Promise((resolveClose) => closing.close(resolveClose));
  };
  const open = async () => {
    hung = false;
    if (!server) server = await listen(port);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    open,
    close,
    hang: async () => {
      accepted = new Promise<void>((resolveAccept) => (onAccept = resolveAccept));
      await open();
      hung = true;
    },
    accepted: () => accepted,
    holdAnswers: (hold: boolean) => {
      holding = hold;
    },
  };
}
