/**
 * The spool drains itself: hook calls made while the hub is down leave a detached drainer, which
 * delivers once the hub is up with no further hook call, at the events' firing times; a drainer
 * killed (kill -9) in the middle of a request loses nothing and doubles nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot, TurnWithActivity } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { deadUrl, fixture, hubReader, sendHooks, stopDrainers } from './run-cli.js';

let hub: TestHub | undefined;
let spoolDir: string;
beforeEach(() => {
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
});
closeTestHubsAfterEach();
afterEach(() => {
  stopDrainers(spoolDir);
  rmSync(spoolDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  hub = undefined;
});
const { get } = hubReader(() => hub!);

const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function hookEnv(url: string): Record<string, string> {
  return { SESSION_HUB_URL: url, SESSION_HUB_TOKEN: TEST_TOKENS.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_DRAIN_BACKOFF_MS: '200', SESSION_HUB_DRAIN_MAX_BACKOFF_MS: '500' };
}

/** The one hub spool of the test (each test names one hub URL). */
function hubDir(): string {
  const dirs = readdirSync(spoolDir).filter((name) => name.startsWith('hub-'));
  expect(dirs).toHaveLength(1);
  return join(spoolDir, dirs[0]!);
}

function spooled(): { id: string; firedAt: number; payload: { hook_event_name: string } }[] {
  const file = join(hubDir(), 'spool-claude.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as ReturnType<typeof spooled>[number]) : [];
}

/** Polls until `check` returns a value (the drainer works in the background). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function sessionNamed(): Promise<SessionSnapshot | undefined> {
  const { sessions } = await get<{ sessions: SessionSnapshot[] }>('/api/sessions');
  return sessions.find((s) => s.tag === tag);
}

describe('the drainer', () => {
  it('delivers what was spooled while the hub was down, with no further hook call, at the firing times', { timeout: 60_000 }, async () => {
    const down = await deadUrl();
    const calls = await sendHooks('claude', claude.slice(0, 6), hookEnv(down));
    for (const call of calls) {
      expect(call).toMatchObject({ code: 0, stdout: '' });
      expect(call.stderr).toContain('hub unreachable');
    }
    const fired = spooled();
    expect(fired.map((e) => e.payload.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUse', 'PostToolUse', 'Stop']);

    const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(status.stdout).toContain('claude: 6 event(s) spooled');
    expect(status.stdout).toContain(`session ${tag}: 6 event(s)`);
    expect(status.stdout).toMatch(/drainer: (waiting|sending) \(pid \d+/);
    expect(status.stdout).toContain('unreachable');

    // the hub comes up where the hook points; no hook fires again
    hub = await startTestHub({ config: { port: Number(new URL(down).port) } });
    const session = await eventually(async () => {
      const found = await sessionNamed();
      return found && spooled().length === 0 ? found : undefined;
    }, 'the drainer to deliver');
    const [turn] = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    // the times are the firing times, not the delivery time
    expect(session.lifecycle.since).toBe(fired[0]!.firedAt);
    expect(turn).toMatchObject({ prompt: 'Add a --verbose flag to the CLI', status: 'completed', openedAt: fired[1]!.firedAt, closedAt: fired[5]!.firedAt });
    expect(turn!.activities.map((a) => a.at)).toEqual([fired[2]!.firedAt, fired[3]!.firedAt, fired[4]!.firedAt]);

    const drained = await eventually(async () => {
      const state = JSON.parse(readFileSync(join(hubDir(), 'drainer-claude.json'), 'utf8')) as { state: string; exitReason?: string };
      return state.state === 'exited' ? state : undefined;
    }, 'the drainer to exit');
    expect(drained.exitReason).toBe('spool empty');
    expect((await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } })).stdout).toContain('drainer: not running (last one exited');
  });

  it('killed with kill -9 in the middle of a request: nothing lost, nothing doubled', { timeout: 60_000 }, async () => {
    hub = await startTestHub();
    const target = hub.url;
    // a proxy in front of the hub: down at first (503), then it forwards one request and keeps the answer
    let mode: 'down' | 'hold' | 'pass' = 'down';
    let forwarded!: () => void;
    const heldAnswered = new Promise<void>((resolve) => (forwarded = resolve));
    const held: ServerResponse[] = [];
    const proxy: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (mode === 'down') {
          res.writeHead(503).end('{"error":"internal","message":"starting"}');
          return;
        }
        void fetch(`${target}${req.url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: req.headers.authorization! }, body: Buffer.concat(chunks) }).then(async (answer) => {
          if (mode === 'hold') {
            held.push(res); // the hub applied the batch; its answer never reaches the drainer
            forwarded();
            return;
          }
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      await sendHooks('claude', claude.slice(0, 5), hookEnv(proxyUrl));
      expect(spooled()).toHaveLength(5);
      // the drainer was started detached; it takes its lock once it runs
      const pid = await eventually(async () => {
        const holder = Number(readFileSync(join(hubDir(), 'drainer-claude.lock'), 'utf8').split('.')[0]);
        return holder > 0 ? holder : undefined;
      }, 'the drainer to take its lock');

      mode = 'hold';
      await heldAnswered; // the drainer's next try went through to the hub
      process.kill(pid, 'SIGKILL');
      // killed before it heard the answer: every event is still spooled
      expect(spooled()).toHaveLength(5);

      // the next hook call sends them again: the hub knows their ids
      mode = 'pass';
      const [last] = await sendHooks('claude', [claude[5]!], hookEnv(proxyUrl));
      expect(last!.stderr).toBe('');
      expect(spooled()).toHaveLength(0);
      const session = (await sessionNamed())!;
      expect(session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
      const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
      expect(turns.map((t) => [t.prompt, t.status, t.activities.map((a) => a.toolUseId)])).toEqual([
        ['Add a --verbose flag to the CLI', 'completed', ['toolu_01A', 'toolu_01B', 'toolu_01C']],
      ]);
      // one run: the SessionStart was not applied twice
      expect((await get<{ history: unknown[] }>(`/api/sessions/${session.sid}/history`)).history).toHaveLength(1);
    } finally {
      for (const res of held) res.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
