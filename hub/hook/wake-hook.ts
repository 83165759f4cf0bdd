/**
 * `session-hub hook <flavor> --wake`: the background hook that waits for a person's message after the
 * agent stopped (the registry's `wakeHook`: Claude Code's `asyncRewake` Stop hook) and wakes the
 * idle agent with it: the text on stderr, the wake exit code (2). Nothing in time, another waiter of
 * the same session took the message, a hub away or refusing: exit 0 with nothing (a refusal with a
 * note), so the agent stays as it was. It proves it is the session's own with the session's taker
 * key (./taker-key.ts).
 * Headless (the registry's `headless` variable, e.g. `claude -p`): exit 0 at once, stdin unread: no
 * person is there to reply, and the run would not end while the waiter waits. It spools nothing: the
 * same stop's own hook reports the event. Part of the bridge bundle.
 */
import { getFlavor, hookFieldsOf } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import type { HookWaitResponse } from '../../shared/protocol/messages.js';
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
  return waitAcrossOutages({ url, token, waitMs, body: (remaining) => JSON.stringify({ flavor, tag, event, waitMs: remaining, ...(taker ? { taker } : {}) }) }, wake.wakeExitCode);
}

/** First pause after a hub away, doubled per failure up to WAKE_RETRY_MAX_MS. */
export const WAKE_RETRY_MIN_MS = 250;
export const WAKE_RETRY_MAX_MS = 5000;
/** An empty answer with more than this left is the hub closing, not the wait's end: wait again. */
const EARLY_EMPTY_MS = 1000;

/**
 * Waits on the hub until a message comes or the wait's own deadline: a hub restarting or away
 * (refused connection, a 5xx, an empty answer well before the deadline as a closing hub gives) is
 * asked again with what is left of the wait, after a pause that grows, so the waiter outlives a hub
 * restart (issue 34) and the agent is woken by a message posted after it.
 */
async function waitAcrossOutages(
  wait: { url: string; token: string; waitMs: number; body: (remainingMs: number) => string },
  wakeExitCode: number,
): Promise<WakeOutcome> {
  const deadline = Date.now() + wait.waitMs;
  let pause = WAKE_RETRY_MIN_MS;
  let lastTrouble = '';
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { exitCode: 0, stderr: lastTrouble ? `session-hub hook: waiting for messages: ${lastTrouble}\n` : '' };
    try {
      // the hub answers by `remaining`; a little more for the answer to come back
      const answer = await postJson(new URL('/api/hooks/wait', wait.url), { authorization: `Bearer ${wait.token}` }, wait.body(remaining), remaining + 5000);
      if (answer.status === 200) {
        const { messages } = JSON.parse(answer.body) as HookWaitResponse;
        if (messages.length > 0) return { exitCode: wakeExitCode, stderr: `${messages.map((message) => message.text).join('\n\n')}\n` };
        if (deadline - Date.now() <= EARLY_EMPTY_MS) return { exitCode: 0, stderr: '' };
        lastTrouble = '';
      } else if (answer.status < 500) {
        // refused (a revoked token, not the session's taker, a bad request): asking again changes nothing
        return { exitCode: 0, stderr: `session-hub hook: waiting for messages: ${answer.status} ${answer.body.slice(0, 200)}\n` };
      } else {
        lastTrouble = `${answer.status} ${answer.body.slice(0, 200)}`;
      }
    } catch (error) {
      lastTrouble = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(pause * 2, WAKE_RETRY_MAX_MS);
  }
}
