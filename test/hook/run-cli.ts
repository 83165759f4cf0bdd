import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
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
    stopDrainers(started.spoolDir);
    await started.hub.close();
    rmSync(started.spoolDir, { recursive: true, force: true });
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

/** Ends the drainers a test's hook calls left behind (detached processes retrying for minutes). */
export function stopDrainers(spoolDir: string): void {
  if (!existsSync(spoolDir)) return;
  for (const name of readdirSync(spoolDir).filter((n) => /^drainer-.*\.lock$/.test(n))) {
    const pid = Number(readFileSync(join(spoolDir, name), 'utf8'));
    try {
      if (pid > 0) process.kill(pid, 'SIGKILL');
    } catch {
      // exited already
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
