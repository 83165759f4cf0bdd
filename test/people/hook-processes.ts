/**
 * Real `session-hub hook claude` processes (the bundled bridge `hook install` writes) for the person
 * loop's tests, fed Claude Code's real payloads (test/hook/fixtures, each naming its source).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { stopDrainers } from '../hook/run-cli.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
const FIXTURES = resolve(import.meta.dirname, '../hook/fixtures');

/** A payload of test/hook/fixtures/attention/<name>.json in the agent session `sessionId`. */
export function attentionPayload(name: string, sessionId: string): Record<string, unknown> {
  const { payload } = JSON.parse(readFileSync(join(FIXTURES, 'attention', `${name}.json`), 'utf8')) as { payload: Record<string, unknown> };
  return { ...payload, session_id: sessionId };
}

/** The payloads of a fixture file with a `payloads` list, moved into the agent session `sessionId`. */
export function fixturePayloads(file: string, sessionId: string): Record<string, unknown>[] {
  const { payloads } = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { payloads: Record<string, unknown>[] };
  return payloads.map((p) => ({ ...p, session_id: sessionId }));
}

export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One hook process, started now: the child (to kill) and its end. */
export function startHook(body: Record<string, unknown>, env: Record<string, string>): { child: ChildProcess; done: Promise<HookRun> } {
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin!.end(JSON.stringify(body));
  const done = new Promise<HookRun>((resolveRun) => child.once('close', (code, signal) => resolveRun({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Reads a hub's API with a token of its (operator: it may read everything a dashboard may). */
export function hubApi(hub: () => { url: string; token: string }) {
  async function get<T>(path: string): Promise<T> {
    const response = await fetch(`${hub().url}${path}`, { headers: { authorization: `Bearer ${hub().token}` } });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }
  async function sessionOf(tag: string): Promise<SessionSnapshot | undefined> {
    const { sessions } = await get<{ sessions: SessionSnapshot[] }>('/api/sessions?limit=500');
    return sessions.find((s) => s.tag === tag);
  }
  async function approvalsOf(sid: string): Promise<Approval[]> {
    return (await get<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`)).approvals;
  }
  /** The session's approvals once `ready` holds for them (polled; the hook processes run on their own). */
  async function approvalsWhen(tag: string, ready: (approvals: Approval[]) => boolean, what: string): Promise<{ sid: string; approvals: Approval[] }> {
    let last: Approval[] = [];
    for (let tries = 0; tries < 400; tries++) {
      const session = await sessionOf(tag);
      if (session) {
        last = await approvalsOf(session.sid);
        if (ready(last)) return { sid: session.sid, approvals: last };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${tag}: ${what} never came; approvals: ${JSON.stringify(last.map((a) => a.status))}`);
  }
  function decide(sid: string, approvalId: string, body: Record<string, unknown>): Promise<Response> {
    return fetch(`${hub().url}/api/sessions/${sid}/approvals/${approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub().token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
  return { get, sessionOf, approvalsOf, approvalsWhen, decide };
}

/**
 * `hookEnv(url, token)`: the environment of a hook process sending to that hub, each with a spool
 * directory of its own; after each test the drainers it left are stopped and the directories removed.
 */
export function useHookEnvs(): (url: string, runnerToken: string) => Record<string, string> {
  const spoolDirs: string[] = [];
  afterEach(() => {
    for (const dir of spoolDirs.splice(0)) {
      stopDrainers(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return (url, runnerToken) => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    spoolDirs.push(spoolDir);
    return { SESSION_HUB_URL: url, SESSION_HUB_TOKEN: runnerToken, SESSION_HUB_SPOOL_DIR: spoolDir };
  };
}
