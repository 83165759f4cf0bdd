/**
 * One hook call: write the event to its hub's spool first (under the lock, its seq taken there),
 * then send that spool to POST /api/hooks within a short budget. Never throws and never waits
 * long; when events stay spooled, a detached drainer takes over. A call that is wrong in itself
 * (unknown flavor, no JSON object, nested past the hub's depth limit, no session id) sends nothing
 * and says so (stderr, hook status);
 * an event the spool cannot take is sent directly. Part of the bridge bundle (node built-ins and
 * the registry's plain data only).
 */
import { hostname } from 'node:os';
import { readMachineId } from '../../shared/machine-config.js';
import { FLAVORS, getFlavor, hookFieldsOf, isApprovalHook, isQuestionCall, messageHookOf } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import { DOCUMENT_LEVELS, nestingProblem } from '../../shared/protocol/json-depth.js';
import { startKeeper } from './agent-keeper.js';
import { agentPidOfHook } from './agent-watch.js';
import { askHub } from './approval-hook.js';
import { recordBadCall } from './bad-calls.js';
import { deliverSpool, type DeliveryReport } from './deliver.js';
import { spawnDrainer, targetOf } from './drainer.js';
import { newEventId } from './event-id.js';
import { refusalAdvice } from './refusal.js';
import { isWriteError, sendUnspooled } from './send-unspooled.js';
import { hubOrigin, targetDir, targetKey, unsetDir } from './spool-target.js';
import { defaultSpoolDir, Spool, type SpooledEvent } from './spool.js';
import { turnUsage } from './turn-usage.js';
import { agentTexts } from './agent-texts.js';

export interface HookOutcome {
  /** What happened to this payload: spooled (and maybe delivered), sent without the spool, or refused as a bad call. */
  received: 'spooled' | 'sent-unspooled' | 'invalid';
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

/** What is wrong with the call itself, if anything: then nothing is spooled or sent. */
function badCall(flavor: string, payload: Record<string, unknown> | null): string | undefined {
  if (getFlavor(flavor) === undefined) return `unknown flavor "${flavor}" (known: ${[...FLAVORS.keys()].join(', ')}); check the hook command the agent runs`;
  if (payload === null) return 'the hook payload is not a JSON object';
  const field = hookFieldsOf(flavor, payload).sessionId;
  if (readText(payload, field) === undefined) return `the payload has no "${field}": the hub cannot tell which session it belongs to`;
  return undefined;
}

/** This computer, and the machine runner installed on it if any: a runner there can continue the session. */
function whereItRuns(flavor: string, env: NodeJS.ProcessEnv): { host?: string; machineId?: string; agentPid?: number } {
  const host = hostname();
  const machineId = readMachineId(env);
  const agentPid = agentPidOfHook(getFlavor(flavor)?.hookConfig?.agentKeeper?.processNames);
  return { ...(host ? { host } : {}), ...(machineId ? { machineId } : {}), ...(agentPid !== undefined ? { agentPid } : {}) };
}

/** `entry`: the bridge's own file, which a drainer is started from. `firedAt`: when the hook process started. */
export async function runHook(
  flavor: string,
  rawPayload: string,
  env: NodeJS.ProcessEnv,
  /** `onSpooled(limitMs)`: the event is safe (spooled, or taken by the hub); the process may end within limitMs (default: the budget). */
  /** `onEvent(spool, event)`: the event as it will be spooled, before it is (the bridge keeps it for a SIGTERM). `ask`: install's `--ask` entry. */
  options: { firedAt: number; entry: string; onSpooled?: (limitMs?: number) => void; onEvent?: (spool: Spool, event: Omit<SpooledEvent, 'seq'>) => void; ask?: boolean },
): Promise<HookOutcome> {
  const budget = Number(env.SESSION_HUB_HOOK_BUDGET_MS ?? DEFAULT_HOOK_BUDGET_MS);
  const deadline = Date.now() + budget;
  const spoolDir = defaultSpoolDir(env);
  const outcome: HookOutcome = { received: 'invalid', delivered: 0, remaining: 0, errors: [] };

  // nested past what the hub takes: refused on the text, before anything walks it (issue 33.1)
  const tooDeep = nestingProblem(rawPayload, DOCUMENT_LEVELS, 'the hook payload');
  const payload = tooDeep === undefined ? parsePayload(rawPayload) : null;
  const wrong = tooDeep ?? badCall(flavor, payload);
  if (wrong !== undefined || payload === null) {
    const problem = wrong ?? 'the hook payload is not a JSON object';
    recordBadCall(spoolDir, { at: options.firedAt, flavor, problem });
    return { ...outcome, errors: [`${problem}; nothing spooled or sent (shown by \`session-hub hook status\`)`] };
  }
  const fields = hookFieldsOf(flavor, payload);
  const tag = readText(payload, fields.sessionId) ?? null;
  const hookName = readText(payload, fields.event);
  // mapping is the hub's: every payload is spooled as it came, the hub says what it makes of it
  const event: Omit<SpooledEvent, 'seq'> = { id: newEventId(options.firedAt), flavor, firedAt: options.firedAt, payload: payload as SpooledEvent['payload'], tag, ...whereItRuns(flavor, env) };

  // the spool of the hub and token this call names: its events go there and nowhere else
  const target = targetOf(env);
  const spool = target ? new Spool(targetDir(spoolDir, target), flavor, { url: hubOrigin(target.url), key: targetKey(target) }) : new Spool(unsetDir(spoolDir), flavor);
  options.onEvent?.(spool, event);
  const unspooled = async (error: unknown, seq?: number): Promise<HookOutcome> => {
    const why = isWriteError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    options.onSpooled?.();
    const sent = await sendUnspooled({ ...event, ...(seq === undefined ? {} : { seq }) }, target, why, Math.max(500, deadline - Date.now()));
    return { ...outcome, received: 'sent-unspooled', errors: [...outcome.errors, ...sent.errors, ...spool.problems], ...(sent.answer ? { stdout: sent.answer } : {}) };
  };

  // a hook the agent waits on for an approval: asked outside the spool lock; spooled as usual when not taken
  let seq: number | undefined;
  // `--ask` (the entry install matches to the tools that ask the person): such a call waits for the answer too
  const asks = options.ask === true && isQuestionCall(flavor, hookName, readText(payload, fields.toolName));
  if (target && (isApprovalHook(flavor, hookName) || asks)) {
    let asked;
    try {
      asked = await askHub(spool, event, target, { budget, env, ...(options.onSpooled ? { onSpooled: options.onSpooled } : {}) });
    } catch (error) {
      return await unspooled(error);
    }
    outcome.errors.push(...asked.errors);
    if (asked.kind === 'answered') return { ...outcome, received: 'spooled', delivered: 1, ...(asked.answer ? { stdout: asked.answer } : {}), errors: [...outcome.errors, ...spool.problems] };
    seq = asked.seq;
  }

  let recorded;
  try {
    recorded = await spool.locked(budget / 2, async () => {
      spool.adoptParts();
      // the turn's usage from the agent's transcript, where the flavor keeps one (its offsets live in the state)
      const read = await turnUsage(flavor, payload, tag, spool.state(), hookName);
      if (read.usage) event.usage = read.usage;
      if (read.problem) outcome.errors.push(read.problem);
      // the agent's words since the last read, after the usage read waited for the closing text
      const said = await agentTexts(flavor, payload, tag, spool.state(), hookName);
      if (said.texts) event.texts = said.texts;
      if (said.problem) outcome.errors.push(said.problem);
      if (!target) spool.state().lastError = { at: Date.now(), kind: 'not-configured', message: 'SESSION_HUB_URL and SESSION_HUB_TOKEN are not both set' };
      if (seq === undefined) spool.append(event);
      else spool.appendTaken({ ...event, seq });
    });
    if (recorded === null) spool.writePart(event); // the spool stayed busy: a part file, adopted by the next holder
  } catch (error) {
    if (!isWriteError(error)) throw error;
    return await unspooled(error, seq);
  }
  outcome.received = 'spooled';
  options.onSpooled?.();
  if (recorded === null) {
    // a drainer sends it
    await spawnDrainer(options.entry, flavor, env);
    return { ...outcome, errors: [...outcome.errors, 'spool busy; the event is queued and a drainer sends it', ...spool.problems] };
  }

  if (!target) {
    return { ...outcome, errors: [...outcome.errors, `SESSION_HUB_URL and SESSION_HUB_TOKEN must be set; the event stays in ${spool.dir} (\`session-hub hook retry-refused\` sends it once they are)`, ...spool.problems] };
  }

  let tell = false;
  let sent;
  try {
    sent = await spool.locked(Math.max(0, deadline - Date.now()), async () => {
      // a message hook (the agent's stop): this process prints the person's queued messages, if any
      const report = await deliverSpool(spool, target, deadline, messageHookOf(flavor, hookName) ? { take: event.id } : {});
      // once per agent session, the user hears of a refused token through the agent itself
      const told = spool.state().told;
      if (report.refused && tag !== null && told[tag] === undefined) {
        told[tag] = Date.now();
        tell = true;
      }
      return report;
    });
  } catch (error) {
    // spooled already; delivering could not write the spool (a full disk since): a drainer retries
    await spawnDrainer(options.entry, flavor, env);
    outcome.errors.push(`the spool could not be written while sending it (${(error as Error).message}); a drainer retries`, ...spool.problems);
    return outcome;
  }
  if (sent === null) {
    // the holder may have read the spool before our event landed: make sure someone sends it
    await spawnDrainer(options.entry, flavor, env);
    outcome.errors.push('spool busy; a drainer sends the event', ...spool.problems);
    return outcome;
  }
  // the hub has the session now: the agent's keeper tells it the agent lives, and when it died
  if (tag !== null && !sent.value.refused) await startKeeper(options.entry, flavor, tag, event.agentPid, env);
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
    outcome.errors.push(`${advice}; ${report.refused.events.length} event(s) kept in ${context.spool.rejectedFile} (\`session-hub hook retry-refused\` sends them once the token is fixed)`);
    const field = getFlavor(context.flavor)?.hookConfig?.userMessageField;
    if (context.tell && field) outcome.stdout = { [field]: `session-hub: this session is not reported to the hub. ${advice}` };
  } else if (report.remaining > 0) {
    await spawnDrainer(context.entry, context.flavor, context.env);
    outcome.errors.push(`hub unreachable, ${report.remaining} event(s) spooled; a background drainer retries: ${report.stoppedBy ?? ''}`);
  }
  // this event's answer: the person's queued messages at a message hook
  const result = report.results.get(context.event.id);
  if (result?.answer) outcome.stdout = { ...result.answer, ...outcome.stdout };
  if (result?.takeRefused) outcome.errors.push(`the hub gave this hook no messages: ${result.takeRefused}`);
  outcome.errors.push(...context.spool.problems);
  return outcome;
}
