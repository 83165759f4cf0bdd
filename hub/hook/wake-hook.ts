/**
 * `session-hub hook <flavor> --wake`: the background hook that waits for a person's message after the
 * agent stopped (the registry's `wakeHook`: Claude Code's `asyncRewake` Stop hook) and wakes the
 * idle agent with it: the text on stderr, the wake exit code (2). Nothing in time, a newer waiter
 * of the same session, a hub away or refusing: exit 0 with nothing, so the agent stays as it was.
 * It spools nothing: the same stop's own hook reports the event. Part of the bridge bundle.
 */
import { getFlavor, hookFieldsOf } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import type { HookWaitResponse } from '../../shared/protocol/messages.js';
import { postJson } from './http-post.js';

/** The wait from `SESSION_HUB_WAKE_WAIT_MS` (a positive number of ms), else the flavor's default. */
export function wakeWaitMs(env: NodeJS.ProcessEnv, defaultMs: number): number {
  const given = Number(env.SESSION_HUB_WAKE_WAIT_MS);
  return Number.isFinite(given) && given > 0 ? Math.round(given) : defaultMs;
}

export interface WakeOutcome {
  exitCode: number;
  /** What goes to stderr: the person's words when waking, else a note (or nothing). */
  stderr: string;
}

export async function runWake(flavor: string, rawPayload: string, env: NodeJS.ProcessEnv): Promise<WakeOutcome> {
  const wake = getFlavor(flavor)?.hookConfig?.wakeHook;
  if (!wake) return { exitCode: 0, stderr: `session-hub hook: ${flavor} has no waking hook\n` };
  const url = env.SESSION_HUB_URL;
  const token = env.SESSION_HUB_TOKEN;
  if (!url || !token) return { exitCode: 0, stderr: 'session-hub hook: SESSION_HUB_URL and SESSION_HUB_TOKEN must be set\n' };
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(rawPayload) as Record<string, unknown>;
  } catch {
    return { exitCode: 0, stderr: 'session-hub hook: stdin is not a JSON object\n' };
  }
  const fields = hookFieldsOf(flavor, payload);
  const tag = readText(payload, fields.sessionId);
  if (!tag) return { exitCode: 0, stderr: `session-hub hook: the payload has no ${fields.sessionId}\n` };
  const waitMs = wakeWaitMs(env, wake.waitMs);
  const body = JSON.stringify({ flavor, tag, event: readText(payload, fields.event) ?? wake.event, waitMs });
  try {
    // the hub answers by waitMs; a little more for the answer to come back
    const answer = await postJson(new URL('/api/hooks/wait', url), { authorization: `Bearer ${token}` }, body, waitMs + 5000);
    if (answer.status !== 200) return { exitCode: 0, stderr: `session-hub hook: waiting for messages: ${answer.status} ${answer.body.slice(0, 200)}\n` };
    const { messages } = JSON.parse(answer.body) as HookWaitResponse;
    if (messages.length === 0) return { exitCode: 0, stderr: '' };
    return { exitCode: wake.wakeExitCode, stderr: `${messages.map((message) => message.text).join('\n\n')}\n` };
  } catch (error) {
    return { exitCode: 0, stderr: `session-hub hook: waiting for messages: ${error instanceof Error ? error.message : String(error)}\n` };
  }
}
