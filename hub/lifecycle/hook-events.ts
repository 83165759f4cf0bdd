/**
 * POST /api/hooks applied: each agent hook event, mapped through the registry on the hub, becomes
 * the lifecycle action a socket runner would send, run as one unit of work at the time the hook
 * fired (clamped: never after the hub's clock, never before the session's previous event), once per
 * event id. The firing time orders the session's events and is what a person reads (a turn's and a
 * tool's times); liveness never trusts the agent machine's clock: the session's sign of life, its
 * activity for the idle sweep and its open turn's activity for the turn timeout are the hub's
 * arrival time (docs/reliability.md). What the bridge used to keep on the user's machine lives
 * here: the session found by tag (get-or-create, detached runs), a session the hub ended reopened by
 * the next event, the turn counter behind derived prompt ids. Every event also sets or clears the session's attention through
 * the registry in the same unit of work; an approval hook the bridge waits on (`sync`) opens an
 * approval, and its result carries the decision (`answer`) once made, or none after the wait.
 */
import { getFlavor, storedTokenProblem } from '../../shared/flavors.js';
import { HubError, hubError } from '../../shared/errors.js';
import type { AgentTextReport, HookEvent, HookResult } from '../../shared/protocol/hooks.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { DRIVEN_BY_KEY, type DrivenBy } from '../../shared/protocol/machines.js';
import { wakeApprovalWaiters } from '../people/approval-waiters.js';
import { applyHookForPerson, hookAnswerOf } from '../people/hook-attention.js';
import { messageHookAnswerIn } from '../people/message-delivery.js';
import type { SessionSource } from '../../shared/protocol/lifecycle.js';
import { runWrite, type ChangeSet, type UnitOfWork } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { endsTurn, hookTagOf, mapHookPayload, type MappedHook } from '../services/hook-payload.js';
import { findAppliedHookEvent, getHookSession, recordAppliedHookEvent, saveHookSession } from '../store/hook-events.js';
import { getSession, getSessionByTag, type StoredSession } from '../store/sessions.js';
import { getTurn } from '../store/turns.js';
import type { Tx } from '../store/sql.js';
import { recordAgentTexts, recordTextsInOpenTurn } from './agent-texts.js';
import { endSessionWork, finalizeSessionWork } from './session-events.js';
import { startSessionWork } from './session-start.js';
import { noteActivity, setPresence } from './transitions.js';
import { noteTurnActivity } from './turn-activity.js';
import { recordToolUseWork, stopTurnWork, submitPromptWork } from './turn-events.js';
import { addLatestTurnUsage } from './usage-events.js';

/**
 * When an event fired, on the hub's clock: the hub's now minus the event's age as the bridge measured
 * it (`ageMs`), so the two machines' clocks need not agree; an event without it, its `firedAt`.
 * What waits on the hub's clock (an approval's wait) uses it.
 */
export function firedOnHubClock(event: Pick<HookEvent, 'firedAt' | 'ageMs'>, hubNow: number): number {
  return event.ageMs === undefined ? event.firedAt : hubNow - event.ageMs;
}

/** The time an event is applied at: when it fired, but not in the hub's future nor before the session's last event. */
export function eventTime(firedAt: number, hubNow: number, notBefore: number): number {
  return Math.max(Math.min(firedAt, hubNow), Math.min(notBefore, hubNow));
}

function startMetadata(hook: MappedHook): JsonObject {
  const metadata: JsonObject = {};
  if (hook.cwd !== null) metadata.path = hook.cwd;
  // where it runs: a machine runner there can continue it (docs/machines.md)
  if (hook.host !== undefined) metadata.host = hook.host;
  if (hook.machineId !== undefined) metadata.machineId = hook.machineId;
  metadata[DRIVEN_BY_KEY] = 'terminal' satisfies DrivenBy;
  const tokenKey = getFlavor(hook.flavor)?.resumeTokenKey;
  if (tokenKey) metadata[tokenKey] = hook.tag;
  return metadata;
}

/** A run the hub ended on its own (runner_silent after the idle time): a later hook shows the agent is alive. */
function lostByHub(session: StoredSession): boolean {
  return session.lifecycle.state === 'ended' && session.lifecycle.by === 'hub' && session.lastRun?.status === 'interrupted';
}

async function start(deps: HubDeps, actor: Actor, hook: MappedHook, source: SessionSource, tx: Tx, changes: ChangeSet, at: number): Promise<string> {
  // detached: no socket stays on the run between hooks; it ends when silent for the idle time
  // the run is the agent process's: its keeper's reports name that pid (agent-reports.ts)
  const work = startSessionWork(deps, actor, { tag: hook.tag, flavor: hook.flavor, source, metadata: startMetadata(hook), detached: true, ...(hook.agentPid !== undefined ? { pid: hook.agentPid } : {}) });
  return (await work(tx, changes, at)).session.sid;
}

/**
 * The hub session an event goes to. A session the hub never saw (hooks installed mid-session) or
 * one it ended between two hooks is (re)opened with a session-start of source `resume`; an end
 * event for no session has nothing to end (null).
 */
async function sessionFor(deps: HubDeps, actor: Actor, hook: MappedHook, existing: StoredSession | undefined, tx: Tx, changes: ChangeSet, at: number): Promise<string | null> {
  const ending = hook.action === 'session-end' || hook.action === 'session-finalize';
  if (existing && (ending || !lostByHub(existing))) return existing.sid;
  if (ending) return null;
  return start(deps, actor, hook, 'resume', tx, changes, at);
}

async function hasOpenTurn(tx: Tx, namespace: string, sid: string): Promise<boolean> {
  const session = await getSession(tx, { namespace, sid });
  const turn = session?.currentTurnId ? await getTurn(tx, session.currentTurnId) : undefined;
  return turn?.status === 'open';
}

/** The agent's words an event carries (docs/hooks.md), by the event's id. */
interface Said {
  eventId: string;
  texts: readonly AgentTextReport[];
}

/** Runs the mapped action; the hub sid it went to, or null when there was none to go to. */
async function applyAction(deps: HubDeps, actor: Actor, hook: MappedHook, existing: StoredSession | undefined, tx: Tx, changes: ChangeSet, at: number, arrivedAt: number, said: Said): Promise<string | null> {
  if (hook.action === 'session-start') return start(deps, actor, hook, hook.source ?? 'startup', tx, changes, at);
  const sid = await sessionFor(deps, actor, hook, existing, tx, changes, at);
  if (sid === null) return null;
  const tool = { sid, tool: hook.tool ?? 'unknown', input: hook.input ?? null, ...(hook.toolUseId ? { toolUseId: hook.toolUseId } : {}) };
  // what the agent wrote before this tool call goes before its line; at a stop, at the turn's end
  const toolSaid = async (used: { turnId: string; at: number }) => recordAgentTexts(tx, { sid, ...said, turnId: used.turnId, notAfter: used.at });
  if (hook.action !== 'tool-start' && hook.action !== 'tool-use' && hook.action !== 'tool-failure') await recordTextsInOpenTurn(tx, { namespace: actor.namespace, sid, ...said, at });
  switch (hook.action) {
    case 'prompt-submit':
      // a wake's prompt goes on with the turn its delivery opened, the person's words (issue 34)
      if (hook.woken === true && (await hasOpenTurn(tx, actor.namespace, sid))) break;
      await submitPromptWork(actor, { sid, prompt: hook.prompt ?? '', ...(hook.promptId ? { promptId: hook.promptId } : {}) })(tx, changes, at);
      break;
    case 'tool-start':
      await toolSaid(await recordToolUseWork(actor, tool, 'running')(tx, changes, at));
      break;
    case 'tool-use':
      await toolSaid(await recordToolUseWork(actor, { ...tool, output: hook.output ?? null }, 'done')(tx, changes, at));
      break;
    case 'tool-failure':
      await toolSaid(await recordToolUseWork(actor, { ...tool, output: hook.output ?? null }, 'failed')(tx, changes, at));
      break;
    case 'tool-batch':
      // a tool that ended on its own keeps its end (recordToolUseWork completes only a running or abandoned one)
      for (const call of hook.batch ?? []) await recordToolUseWork(actor, { sid, tool: call.tool, input: call.input, output: call.output, toolUseId: call.toolUseId }, 'denied')(tx, changes, at);
      break;
    case 'turn-complete': {
      // the same promptId as this turn's agent-turn-start, if one came: then the open turn is kept
      await submitPromptWork(actor, { sid, prompt: hook.prompt ?? '', ...(hook.promptId ? { promptId: hook.promptId } : {}) })(tx, changes, at);
      await stopTurnWork(deps, actor, { sid, ...(hook.response !== undefined ? { response: hook.response } : {}), ...(hook.usage ? { usage: hook.usage } : {}) })(tx, changes, at);
      break;
    }
    case 'turn-stop':
      await stopTurnWork(deps, actor, { sid, ...(hook.response !== undefined ? { response: hook.response } : {}), ...(hook.usage ? { usage: hook.usage } : {}) })(tx, changes, at);
      break;
    case 'session-end':
      if (hook.usage) await addLatestTurnUsage(tx, changes, deps, { session: (await getSession(tx, { namespace: actor.namespace, sid }))!, reports: hook.usage });
      await endSessionWork(deps, actor, { sid, ...(hook.reason !== undefined ? { reason: hook.reason } : {}) })(tx, changes, at);
      return sid;
    case 'session-finalize':
      await finalizeSessionWork(deps, actor, { sid, ...(hook.reason !== undefined ? { reason: hook.reason } : {}) })(tx, changes, at);
      return sid;
    case 'notification':
      break;
  }
  await showAlive(tx, changes, actor, hook.tag, { at, arrivedAt });
  return sid;
}

/**
 * A hook is a sign of life, as a runner's heartbeat: the session is active, alive and active when
 * the hub received the event (an agent machine's clock minutes behind must not look silent), and
 * its open turn had activity then; the sweep makes it inactive after the alive timeout without
 * hooks (no socket to lose). "Active since" is shown, so it is the event's own time.
 */
async function showAlive(tx: Tx, changes: ChangeSet, actor: Actor, tag: string, time: { at: number; arrivedAt: number }): Promise<void> {
  const session = (await getSessionByTag(tx, { namespace: actor.namespace, tag }))!;
  // never backwards: a boot sweep's stamp or an earlier arrival can be later than this event's time
  await noteActivity(tx, changes, session, Math.max(time.arrivedAt, session.lastActivityAt));
  await noteTurnActivity(tx, session, time.arrivedAt);
  await setPresence(tx, changes, session, {
    active: true,
    activeAt: session.presence.active ? session.presence.activeAt : time.at,
    aliveAt: Math.max(session.presence.aliveAt ?? 0, time.arrivedAt),
    thinking: session.presence.thinking,
  });
}

/** One event applied: its result, approvals it superseded (to wake after the commit), the approval it opened (to wait on). */
interface Applied {
  result: HookResult;
  superseded: string[];
  approvalId?: string;
}

function applyOne(deps: HubDeps, actor: Actor, event: HookEvent): UnitOfWork<Applied> {
  return async (tx, changes, hubNow) => {
    const key = { namespace: actor.namespace, eventId: event.id };
    if ((await findAppliedHookEvent(tx, key)) !== undefined) return { result: { id: event.id, outcome: 'duplicate' }, superseded: [] };
    const tag = hookTagOf(event.flavor, event.payload);
    const known = tag === undefined ? undefined : await getHookSession(tx, { namespace: actor.namespace, tag });
    const mapped = mapHookPayload(event.flavor, event.payload, known?.turnsEnded ?? 0);
    if (mapped.kind === 'ignored') {
      await recordAppliedHookEvent(tx, { ...key, outcome: 'ignored', at: hubNow });
      return { result: { id: event.id, outcome: 'ignored', detail: mapped.why }, superseded: [] };
    }
    // the agent's session id becomes the session's resume token: one that no agent makes is refused
    const tokenProblem = storedTokenProblem(getFlavor(event.flavor)?.resumeTokenKey ?? '', mapped.hook.tag);
    if (tokenProblem !== null) throw hubError.invalidPayload(`the hook's session id is refused: ${tokenProblem}`);
    const hook: MappedHook = {
      ...mapped.hook,
      ...(event.usage ? { usage: event.usage } : {}),
      ...(event.host ? { host: event.host } : {}),
      ...(event.machineId ? { machineId: event.machineId } : {}),
      ...(event.agentPid !== undefined ? { agentPid: event.agentPid } : {}),
    };
    const existing = await getSessionByTag(tx, { namespace: actor.namespace, tag: hook.tag });
    // shown and ordered at its firing time (docs/reliability.md), not before the session's previous
    // hook event: not its activity time, which a hub restart stamps with the start (spooled events
    // fired during the outage keep their own times); its age on the hub's clock decides whether an
    // approval hook came too late
    const at = eventTime(event.firedAt, hubNow, known?.lastAt ?? 0);
    const firedAt = firedOnHubClock(event, hubNow);
    const sid = await applyAction(deps, actor, hook, existing, tx, changes, at, hubNow, { eventId: event.id, texts: event.texts ?? [] });
    const attention = sid === null ? { superseded: [] } : await applyHookForPerson(deps, tx, changes, event, hook, { namespace: actor.namespace, sid }, { at, firedAt, hubNow });
    await saveHookSession(tx, {
      namespace: actor.namespace,
      tag: hook.tag,
      turnsEnded: (known?.turnsEnded ?? 0) + (endsTurn(hook.action) ? 1 : 0),
      lastAt: at,
      lastSeq: Math.max(known?.lastSeq ?? -1, event.seq),
    });
    const outcome = sid === null ? 'ignored' : 'applied';
    await recordAppliedHookEvent(tx, { ...key, outcome, at: hubNow });
    const result: HookResult = sid === null ? { id: event.id, outcome, detail: `no session "${hook.tag}" to end` } : { id: event.id, outcome, sid };
    const { answer, refused } = sid === null ? {} : await messageHookAnswerIn(tx, changes, actor, event, { namespace: actor.namespace, sid }, at);
    if (answer) result.answer = answer;
    if (refused) result.takeRefused = refused;
    return { result, ...attention };
  };
}

/**
 * What an event reads besides its session, from its mapping without the session's turn count
 * (which only numbers prompts): the tool uses it may look up by id, whether it may end its
 * session (then its session is read whole: batch-reads.ts), and whether it carries usage.
 */
function readsOf(event: HookEvent): { toolUseIds: string[]; ending?: true; usage?: true } {
  const mapped = mapHookPayload(event.flavor, event.payload, 0);
  if (mapped.kind === 'ignored') return { toolUseIds: [] };
  const ids = [mapped.hook.toolUseId, ...(mapped.hook.batch ?? []).map((call) => call.toolUseId)];
  const ending = mapped.hook.action === 'session-end' || mapped.hook.action === 'session-finalize';
  return { toolUseIds: ids.filter((id): id is string => typeof id === 'string'), ...(ending ? { ending: true as const } : {}), ...(event.usage?.length ? { usage: true as const } : {}) };
}

/**
 * Applies a batch: events in seq order (stable: the bridge sends each session's events in its
 * order), one write each. An event the hub refuses for good is recorded `failed` (a re-send is a
 * duplicate); a failure of the hub itself stops the batch there, the rest answered `retry`, so a
 * session's events are never applied out of order.
 */
export async function applyHookEvents(deps: HubDeps, actor: Actor, events: readonly HookEvent[], options: { signal?: AbortSignal } = {}): Promise<HookResult[]> {
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  const results: HookResult[] = [];
  const waits: Promise<void>[] = [];
  let stoppedBy: string | undefined;
  for (const event of ordered) {
    if (stoppedBy !== undefined) {
      results.push({ id: event.id, outcome: 'retry', detail: `not applied: an earlier event failed (${stoppedBy})` });
      continue;
    }
    try {
      // its rows are read with the whole batch's (batch-reads.ts)
      const reads = { namespace: actor.namespace, hook: { eventId: event.id, tag: hookTagOf(event.flavor, event.payload) }, ...readsOf(event) };
      const applied = await runWrite(deps, applyOne(deps, actor, event), { namespace: actor.namespace, reads });
      wakeApprovalWaiters(deps, applied.superseded);
      results.push(applied.result);
      const { result, approvalId } = applied;
      // every event of the batch is applied first; the answers are awaited together
      if (approvalId !== undefined) {
        waits.push(
          hookAnswerOf(deps, event, approvalId, options.signal).then((answer) => {
            if (answer === 'ask-again') result.askAgain = true;
            else if (answer) result.answer = answer;
          }),
        );
      }
    } catch (error) {
      if (error instanceof HubError && error.code !== 'internal') {
        await runWrite(deps, (tx, _changes, now) => recordAppliedHookEvent(tx, { namespace: actor.namespace, eventId: event.id, outcome: 'failed', at: now }), { namespace: actor.namespace });
        results.push({ id: event.id, outcome: 'failed', detail: `${error.code}: ${error.message}` });
      } else {
        deps.log.error({ err: error, hookEvent: event.id }, 'applying a hook event failed');
        stoppedBy = 'internal error';
        results.push({ id: event.id, outcome: 'retry', detail: 'internal error; nothing of this event was written' });
      }
    }
  }
  await Promise.all(waits);
  return results;
}
