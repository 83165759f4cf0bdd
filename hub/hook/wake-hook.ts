/**
 * `session-hub hook <flavor> --wake`: the background hook that waits for a person's message after the
 * agent stopped (the registry's `wakeHook`: Claude Code's `asyncRewake` Stop hook) and wakes the
 * idle agent with it: the text on stderr, the wake exit code (2). Nothing in time, another waiter of
 * the same session took the message, a hub refusing: exit 0 with nothing (a refusal with a note), so
 * the agent stays as it was. A hub away or restarting is waited for: the waiter asks again, with a
 * growing pause, until its own wait is over. It ends with its agent (./agent-watch.ts), its open
 * wait closed, so the hub never hands it a message nobody would read. It proves it is the
 * session's own with the session's taker key (./taker-key.ts).
 * Headless (the registry's `headless` variable, e.g. `claude -p`): exit 0 at once, stdin unread: no
 * person is there to reply, and the run would not end while the waiter waits. It spools nothing: the
 * same stop's own hook reports the event. Part of the bridge bundle.
 */
import { getFlavor, hookFieldsOf } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import type { HookWaitResponse } from '../../shared/protocol/messages.js';
import { watchAgent } from './agent-watch.js';
import { postJson } from './http-post.js';
import { defaultSpoolDir } from './spool.js';
import { targetDir } from './spool-target.js';
import { takerOf } from './taker-key.js';

/**
 * The wait from `SESSION_HUB_WAKE_WAIT_MS`: a whole number of ms (0: no waiter), unset or empty the
 * flavor's default; anything else throws, naming the variable and the value.
 */
export function wakeWaitMs(env: NodeJS.ProcessEnv, defaultMs: number): number {
  const given = env.SESSION_HUB_WAKE_WAIT_MS?.trim();
  if (given === undefined || given === '') return defaultMs;
  if (!/^\d+$/.test(given)) throw new Error(`SESSION_HUB_WAKE_WAIT_MS must be a whole number of milliseconds (0: no waiter), not "${given}"`);
  return Number(given);
}

/** Whether the agent runs with no person at a terminal, by the flavor's declared environment variable (inherited by its hooks). */
export function runsHeadless(flavor: string, env: NodeJS.ProcessEnv): boolean {
  const headless = getFlavor(flavor)?.hookConfig?.wakeHook?.headless;
  const value = headless === undefined ? undefined : env[headless.env];
  return value !== undefined && headless!.values.includes(value);
}

export interface WakeOutcome {
  exitCode: number;
  /** What goes to stderr: the person's words when waking, else a note (or nothing). */
  stderr: string;
}

/** `readPayload` is called only when the waiter waits (never headless, so a headless run ends at once). */
export async function runWake(flavor: string, readPayload: () => Promise<string>, env: NodeJS.ProcessEnv): Promise<WakeOutcome> {
  const wake = getFlavor(flavor)?.hookConfig?.wakeHook;
  if (!wake) return { exitCode: 0, stderr: `session-hub hook: ${flavor} has no waking hook\n` };
  if (runsHeadless(flavor, env)) return { exitCode: 0, stderr: '' };
  let waitMs: number;
  try {
    waitMs = wakeWaitMs(env, wake.waitMs);
  } catch (error) {
    return { exitCode: 0, stderr: `session-hub hook: ${(error as Error).message}\n` };
  }
  if (waitMs === 0) return { exitCode: 0, stderr: '' };
  const url = env.SESSION_HUB_URL;
  const token = env.SESSION_HUB_TOKEN;
  if (!url || !token) return { exitCode: 0, stderr: 'session-hub hook: SESSION_HUB_URL and SESSION_HUB_TOKEN must be set\n' };
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(await readPayload()) as Record<string, unknown>;
  } catch {
    return { exitCode: 0, stderr: 'session-hub hook: stdin is not a JSON object\n' };
  }
  const fields = hookFieldsOf(flavor, payload);
  const tag = readText(payload, fields.sessionId);
  if (!tag) return { exitCode: 0, stderr: `session-hub hook: the payload has no ${fields.sessionId}\n` };
  // the session's taker key, shared with its other hooks on this machine: without it the hub refuses the wait
  const taker = takerOf(targetDir(defaultSpoolDir(env), { url, token }), tag);
  const event = readText(payload, fields.event) ?? wake.event;
  return waitAndWake({ url, token, waitMs, exitCode: wake.wakeExitCode, body: (remainingMs) => JSON.stringify({ flavor, tag, event, waitMs: remainingMs, ...(taker ? { taker } : {}) }) }, env);
}

/** The pause before asking again after the hub was away, doubling from RETRY_FIRST_MS to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
/** Less left than this: not worth another request. */
const LAST_ASK_MS = 1000;

/** Asks the hub until a message comes, the wait is over, the hub refuses, or the agent is gone. */
async function waitAndWake(ask: { url: string; token: string; waitMs: number; exitCode: number; body: (remainingMs: number) => string }, env: NodeJS.ProcessEnv): Promise<WakeOutcome> {
  const deadline = Date.now() + ask.waitMs;
  const agentGone = new AbortController();
  const watchMs = Number(env.SESSION_HUB_WAKE_WATCH_MS) > 0 ? Number(env.SESSION_HUB_WAKE_WATCH_MS) : 1000;
  const stopWatching = watchAgent(() => agentGone.abort(), watchMs);
  const gone = { exitCode: 0, stderr: 'session-hub hook: the agent exited; stopped waiting for messages\n' };
  let pause = RETRY_FIRST_MS;
  let lastProblem = '';
  try {
    for (let remaining = ask.waitMs; remaining > 0; remaining = deadline - Date.now()) {
      if (agentGone.signal.aborted) return gone;
      let answer;
      try {
        // the hub answers by `remaining`; a little more for the answer to come back
        answer = await postJson(new URL('/api/hooks/wait', ask.url), { authorization: `Bearer ${ask.token}` }, ask.body(remaining), remaining + 5000, agentGone.signal);
      } catch (error) {
        if (agentGone.signal.aborted) return gone;
        lastProblem = error instanceof Error ? error.message : String(error);
        answer = undefined;
      }
      if (answer && answer.status === 200) {
        const { messages } = JSON.parse(answer.body) as HookWaitResponse;
        if (messages.length > 0) return { exitCode: ask.exitCode, stderr: `${messages.map((message) => message.text).join('\n\n')}\n` };
        // nothing: the wait ran out, or the hub answered early as it shut down (then ask again)
        if (deadline - Date.now() < LAST_ASK_MS) return { exitCode: 0, stderr: '' };
        pause = RETRY_FIRST_MS;
        continue;
      }
      // a refusal stands; a hub away, restarting or overloaded is asked again after a pause
      if (answer && answer.status < 500 && answer.status !== 429) return { exitCode: 0, stderr: `session-hub hook: waiting for messages: ${answer.status} ${answer.body.slice(0, 200)}\n` };
      if (answer) lastProblem = `${answer.status} ${answer.body.slice(0, 200)}`;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
      pause = Math.min(pause * 2, RETRY_MAX_MS);
    }
    return { exitCode: 0, stderr: lastProblem ? `session-hub hook: waiting for messages: ${lastProblem}\n` : '' };
  } finally {
    stopWatching();
  }
}
