/**
 * One hook call: write the event to the spool first (under the lock, its seq taken there), then
 * send the spool to POST /api/hooks within a short budget. Never throws and never waits long; when
 * events stay spooled, a detached drainer takes over. Part of the bridge bundle (node built-ins and
 * the registry's plain data only).
 */
import { getFlavor, hookFieldsOf, isApprovalHook, isQuestionCall, messageHookOf } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import { askHub } from './approval-hook.js';
import { deliverSpool, type DeliveryReport } from './deliver.js';
import { spawnDrainer } from './drainer.js';
import { newEventId } from './event-id.js';
import { refusalAdvice } from './refusal.js';
import { defaultSpoolDir, Spool, type SpooledEvent } from './spool.js';
import { turnUsage } from './turn-usage.js';

export interface HookOutcome {
  /** What happened to this payload: spooled (and maybe delivered), or unreadable. */
  received: 'spooled' | 'invalid';
  delivered: number;
  remaining: number;
  /** Lines for stderr. */
  errors: string[];
  /** JSON for stdout (the agent reads it): a message for the user, or a synchronous event's answer. */
  stdout?: Record<string, unknown>;
}

export const DEFAULT_HOOK_BUDGET_MS = 2000;

function parsePayload(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `entry`: the bridge's own file, which a drainer is started from. `firedAt`: when the hook process started. */
export async function runHook(
  flavor: string,
  rawPayload: string,
  env: NodeJS.ProcessEnv,
  /** `onSpooled(limitMs)`: the event is safe (spooled, or taken by the hub); the process may end within limitMs (default: the budget). */
  options: { firedAt: number; entry: string; onSpooled?: (limitMs?: number) => void; ask?: boolean },
): Promise<HookOutcome> {
  const budget = Number(env.SESSION_HUB_HOOK_BUDGET_MS ?? DEFAULT_HOOK_BUDGET_MS);
  const deadline = Date.now() + budget;
  const spool = new Spool(defaultSpoolDir(env), flavor);
  const outcome: HookOutcome = { received: 'invalid', delivered: 0, remaining: 0, errors: [] };

  const payload = parsePayload(rawPayload);
  if (payload === null) return { ...outcome, errors: ['stdin is not a JSON object; nothing spooled'] };
  const fields = hookFieldsOf(flavor);
  const tag = readText(payload, fields.sessionId) ?? null;
  // mapping is the hub's: every payload is spooled as it came, the hub says what it makes of it
  const event: Omit<SpooledEvent, 'seq'> = { id: newEventId(options.firedAt), flavor, firedAt: options.firedAt, payload: payload as SpooledEvent['payload'], tag };

  // a hook the agent waits on for an approval: asked outside the spool lock; spooled as usual when not taken
  let seq: number | undefined;
  const url = env.SESSION_HUB_URL;
  const token = env.SESSION_HUB_TOKEN;
  // `--ask` (the entry install matches to the tools that ask the person): such a call waits for the answer too
  const hookName = readText(payload, fields.event);
  const asks = options.ask === true && isQuestionCall(flavor, hookName, readText(payload, fields.toolName));
  if (url && token && (isApprovalHook(flavor, hookName) || asks)) {
    const asked = await askHub(spool, event, { url, token }, { budget, env, ...(options.onSpooled ? { onSpooled: options.onSpooled } : {}) });
    outcome.errors.push(...asked.errors);
    if (asked.kind === 'answered') return { ...outcome, received: 'spooled', delivered: 1, ...(asked.answer ? { stdout: asked.answer } : {}), errors: [...outcome.errors, ...spool.problems] };
    seq = asked.seq;
  }

  const recorded = await spool.locked(budget / 2, async () => {
    const state = spool.state();
    spool.adoptParts(state);
    // the turn's usage from the agent's transcript, where the flavor keeps one (its offsets live in the state)
    const read = await turnUsage(flavor, payload, tag, state, readText(payload, fields.event));
    if (read.usage) event.usage = read.usage;
    if (read.problem) outcome.errors.push(read.problem);
    if (seq === undefined) spool.append(event, state);
    else spool.appendTaken({ ...event, seq });
    spool.saveState(state);
  });
  if (recorded === null) spool.writePart(event); // the spool stayed busy: a part file, adopted by the next holder
  outcome.received = 'spooled';
  options.onSpooled?.();
  if (recorded === null) {
    // a drainer sends it
    await spawnDrainer(options.entry, flavor, env);
    return { ...outcome, errors: [...outcome.errors, 'spool busy; the event is queued and a drainer sends it', ...spool.problems] };
  }

  if (!url || !token) {
    await spool.locked(budget / 2, () => {
      const state = spool.state();
      state.lastError = { at: Date.now(), kind: 'not-configured', message: 'SESSION_HUB_URL and SESSION_HUB_TOKEN are not both set' };
      spool.saveState(state);
    });
    return { ...outcome, errors: ['SESSION_HUB_URL and SESSION_HUB_TOKEN must be set; the event stays spooled', ...spool.problems] };
  }

  let tell = false;
  const sent = await spool.locked(Math.max(0, deadline - Date.now()), async () => {
    const state = spool.state();
    // a message hook (the agent's stop): this process prints the person's queued messages, if any
    const take = messageHookOf(flavor, readText(payload, fields.event)) ? { take: event.id } : {};
    const report = await deliverSpool(spool, state, { url, token }, deadline, take);
    // once per agent session, the user hears of a refused token through the agent itself
    if (report.refused && tag !== null && state.told[tag] === undefined) {
      state.told[tag] = Date.now();
      tell = true;
    }
    spool.saveState(state);
    return report;
  });
  if (sent === null) {
    // the holder may have read the spool before our event landed: make sure someone sends it
    await spawnDrainer(options.entry, flavor, env);
    outcome.errors.push('spool busy; a drainer sends the event', ...spool.problems);
    return outcome;
  }
  return await settle(outcome, sent.value, { spool, flavor, event, tell, entry: options.entry, env });
}

async function settle(
  outcome: HookOutcome,
  report: DeliveryReport,
  context: { spool: Spool; flavor: string; event: { id: string }; tell: boolean; entry: string; env: NodeJS.ProcessEnv },
): Promise<HookOutcome> {
  outcome.delivered = report.delivered;
  outcome.remaining = report.remaining;
  outcome.errors.push(...report.notes);
  if (report.refused) {
    const advice = refusalAdvice(report.refused.status, report.refused.message);
    outcome.errors.push(`${advice}; ${report.refused.events.length} event(s) kept in ${context.spool.rejectedFile}`);
    const field = getFlavor(context.flavor)?.hookConfig?.userMessageField;
    if (context.tell && field) outcome.stdout = { [field]: `session-hub: this session is not reported to the hub. ${advice}` };
  } else if (report.remaining > 0) {
    await spawnDrainer(context.entry, context.flavor, context.env);
    outcome.errors.push(`hub unreachable, ${report.remaining} event(s) spooled; a background drainer retries: ${report.stoppedBy ?? ''}`);
  }
  // this event's answer: the person's queued messages at a message hook
  const answer = report.results.get(context.event.id)?.answer;
  if (answer) outcome.stdout = { ...answer, ...outcome.stdout };
  outcome.errors.push(...context.spool.problems);
  return outcome;
}
