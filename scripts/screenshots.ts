/**
 * `npm run screenshots`: seeds a hub and writes what the dashboard really looks like into docs/:
 * the session list and a session's detail, at desktop width and at phone width (390 px).
 *
 * The hub runs in this process on a fresh SQLite file; the sessions are made the way real agents make
 * them: Claude Code sessions through the real hook CLI (`session-hub hook claude`, fed the payload
 * fixtures of test/hook/fixtures), and SDK sessions through a runner socket. Chromium is Debian's
 * (CHROMIUM_PATH to use another).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { loadConfig } from '../hub/config.js';
import { createLogger } from '../hub/log.js';
import { startHub, type RunningHub } from '../hub/main.js';
import { openApproval } from '../hub/people/approvals.js';
import { putTurnUsage } from '../hub/store/usage.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const OUT = join(ROOT, 'docs', 'screenshots');
const CLI = join(ROOT, 'dist', 'hub', 'cli.js');
const TOKENS = { runner: 'screenshots-runner-0001', dashboard: 'screenshots-dashboard-0001', admin: 'screenshots-admin-0001' };

type Payload = Record<string, unknown>;
const fixture = (name: string) => JSON.parse(readFileSync(join(ROOT, 'test', 'hook', 'fixtures', name), 'utf8')) as Payload[];

/** One hook process per payload, as Claude Code runs them. */
async function hook(payload: Payload, env: Record<string, string>): Promise<void> {
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, [CLI, 'hook', 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: homedir(), ...env }, stdio: ['pipe', 'ignore', 'inherit'] });
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done() : fail(new Error(`hook exited ${code}`))));
    child.stdin.end(JSON.stringify(payload));
  });
}

async function ack(socket: Socket, event: string, payload: unknown): Promise<any> {
  const answer = await socket.timeout(5000).emitWithAck(event, payload);
  if (answer && answer.ok === false) throw new Error(`${event}: ${JSON.stringify(answer)}`);
  return answer;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function seed(hub: RunningHub, spoolDir: string): Promise<{ detailSid: string; approvalSid: string }> {
  const url = hub.url;
  const env = { SESSION_HUB_URL: url, SESSION_HUB_TOKEN: TOKENS.runner, SESSION_HUB_SPOOL_DIR: spoolDir };
  const home = homedir();
  const claude = fixture('claude-session.json');
  const firstTurn = claude.slice(0, 6); // SessionStart, a prompt, Read/Edit/Bash, Stop

  // an older session that the user left: ended
  const ended = `${crypto.randomUUID()}`;
  for (const p of [...claude.slice(0, 2), ...claude.slice(5, 6)]) await hook({ ...p, session_id: ended, cwd: `${home}/src/notes`, ...(p.prompt ? { prompt: 'Summarise the meeting notes into a changelog entry' } : {}) }, env);
  await hook({ ...claude.at(-1)!, session_id: ended }, env);
  await sleep(1200);

  // an SDK session whose runner went away: lost
  const lostRunner = io(`${url}/runner`, { auth: { token: TOKENS.runner }, transports: ['websocket'] });
  const lost = (await ack(lostRunner, 'session-start', { tag: 'nightly-migration', flavor: 'codex', source: 'startup', metadata: { path: `${home}/src/billing`, codexSessionId: 'cx-7' } })).session;
  await ack(lostRunner, 'prompt-submit', { sid: lost.sid, prompt: 'Run the nightly data migration and report rows changed' });
  lostRunner.disconnect();
  await sleep(1200);

  // a hook-driven Claude Code session that answered and waits for its user: idle, with a closing message
  const idle = `${crypto.randomUUID()}`;
  for (const p of firstTurn) await hook({ ...p, session_id: idle, cwd: `${home}/src/cli-tool` }, env);
  await sleep(1200);

  // an SDK session with a title, at work on a turn with several tools
  const runner = io(`${url}/runner`, { auth: { token: TOKENS.runner }, transports: ['websocket'] });
  const sdk = (await ack(runner, 'session-start', { tag: 'sdk-4711', flavor: 'claude', source: 'startup', metadata: { path: `${home}/src/parser-kit`, title: 'Fix the tests', claudeSessionId: 'c-4711' } })).session;
  await ack(runner, 'prompt-submit', { sid: sdk.sid, prompt: 'The tokenizer tests fail since the last refactor; find out why and fix them.' });
  const tools: [string, unknown, unknown][] = [
    ['Grep', { pattern: 'splitTokens\\(', path: 'src' }, { matches: 4 }],
    ['Read', { file_path: `${home}/src/parser-kit/src/tokenizer.ts` }, { lines: 212 }],
    ['WebFetch', { url: 'https://tc39.es/ecma262/#sec-white-space', prompt: 'Which code points are white space?' }, 'ok'],
    ['Task', { description: 'Check the other callers of splitTokens', prompt: '…' }, 'done'],
    ['Bash', { command: 'npm test -- tokenizer', description: 'Run the tokenizer tests' }, { stdout: '3 failing', stderr: '' }],
  ];
  for (const [tool, input, output] of tools) {
    await ack(runner, 'tool-use', { sid: sdk.sid, tool, toolUseId: `tu-${tool}`, input, output });
    await sleep(400);
  }
  await ack(runner, 'usage', { sid: sdk.sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 182_000, outputTokens: 9_400, cacheReadTokens: 640_000 }] });

  // a session waiting for approval to run a command (opened as the hook path opens one), and one asking something
  const deploy = (await ack(runner, 'session-start', { tag: 'deploy-bot', flavor: 'claude', source: 'startup', metadata: { path: `${home}/src/shop`, title: 'Ship the release', claudeSessionId: 'c-88' } })).session;
  await ack(runner, 'prompt-submit', { sid: deploy.sid, prompt: 'Tag the release and deploy it to staging.' });
  await openApproval(hub.deps, { namespace: 'default', role: 'runner', by: 'runner' }, { sid: deploy.sid, tool: 'Bash', input: { command: 'npm run deploy -- --env staging' }, cwd: `${home}/src/shop` });
  await ack(runner, 'attention', { sid: sdk.sid, kind: 'question', message: 'Should I also update the snapshot files?' });
  return { detailSid: (await findSid(url, idle)) ?? sdk.sid, approvalSid: deploy.sid };
}

async function findSid(url: string, tag: string): Promise<string | undefined> {
  const res = await fetch(`${url}/api/sessions?limit=100`, { headers: { authorization: `Bearer ${TOKENS.dashboard}` } });
  const body = (await res.json()) as { sessions: { sid: string; tag: string }[] };
  return body.sessions.find((s) => s.tag === tag)?.sid;
}

/** `path`: '' for the list, `#/s/<sid>` for a detail, `#/usage` the usage view (shown to an admin token, so its actions show too). */
async function shoot(browser: Browser, url: string, name: string, viewport: { width: number; height: number }, path: string): Promise<void> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}), colorScheme: 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && problems.push(m.text()));
  // signed in as the form would leave it (no token in any URL: docs/security.md)
  await context.addInitScript((token) => sessionStorage.setItem('sessionHub.token', token), path ? TOKENS.admin : TOKENS.dashboard);
  await page.goto(`${url}/${path}`);
  await page.waitForSelector('#conn[data-state="live"]');
  await page.waitForSelector(path === '#/usage' ? '#usage-chart, #usage-chart-note' : path ? '.turns-panel li.turn' : '#sessions li.session');
  await sleep(400);
  const file = join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await context.close();
  if (problems.length) throw new Error(`${name}: page errors: ${problems.join('; ')}`);
  console.log(`wrote ${file}`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-screenshots-'));
  const spoolDir = join(dataDir, 'spool');
  const tokens = `runner:default:${TOKENS.runner},dashboard:default:${TOKENS.dashboard},admin:default:${TOKENS.admin}`;
  const config = loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, tokens, logLevel: 'warn' });
  const hub = await startHub(config, { log: createLogger(config.logLevel) });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    mkdirSync(OUT, { recursive: true });
    const { detailSid, approvalSid } = await seed(hub, spoolDir);
    // earlier days of usage, so the usage view has a daily chart to show (one day reads as a sentence)
    await hub.deps.store.transaction(async (tx) => {
      for (const [daysAgo, inputTokens] of [[1, 420_000], [3, 150_000], [4, 610_000]] as const) {
        await putTurnUsage(tx, { turnId: `screenshots-earlier-${daysAgo}`, sid: detailSid, namespace: 'default', openedAt: Date.now() - daysAgo * 86_400_000 }, [
          { model: 'claude-sonnet-4-5', inputTokens, outputTokens: inputTokens / 20, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: (inputTokens * 3 + (inputTokens / 20) * 15) / 1e6 },
        ]);
      }
    });
    const detail = `#/s/${encodeURIComponent(detailSid)}`;
    await shoot(browser, hub.url, 'list-desktop', { width: 1280, height: 640 }, '');
    await shoot(browser, hub.url, 'list-phone', { width: 390, height: 844 }, '');
    await shoot(browser, hub.url, 'detail-desktop', { width: 1280, height: 800 }, detail);
    await shoot(browser, hub.url, 'detail-phone', { width: 390, height: 844 }, detail);
    await shoot(browser, hub.url, 'approval-desktop', { width: 1280, height: 800 }, `#/s/${encodeURIComponent(approvalSid)}`);
    await shoot(browser, hub.url, 'usage-desktop', { width: 1280, height: 640 }, '#/usage');
    await shoot(browser, hub.url, 'usage-phone', { width: 390, height: 844 }, '#/usage');
  } finally {
    await browser.close();
    await hub.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
