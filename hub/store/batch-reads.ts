import { prefetchAppliedRequests, type VersionedField } from './applied-requests.js';
import { prefetchSeqCounters } from './events.js';
import { prefetchHookRows } from './hook-events.js';
import { prefetchHookPromptTurns } from './hook-prompt-turns.js';
import { prefetchPendingApprovals } from './approvals.js';
import { prefetchTakers } from './message-takers.js';
import { prefetchQueuedMessages } from './messages.js';
import { prefetchSessions, prefetchSessionsAnyNamespace, prefetchSessionsByTag } from './sessions.js';
import { prefetchResumeTokens } from './resume-tokens.js';
import { prefetchRunsDetached } from './runs.js';
import { prefetchActivities, prefetchCurrentTurns, prefetchRunningActivities, prefetchRunningToolTurns } from './turns.js';
import { prefetchSessionUsage } from './usage.js';
import type { Tx } from './sql.js';

/**
 * What one write of a batch will read: its session (by sid, or by tag for a hook event), whether its
 * requestId or hook event id was applied already, and its hook session.
 */
export interface WriteReads {
  namespace: string;
  sid?: string;
  applied?: { field: VersionedField; requestId: string };
  /** A hook event: its id and tag (it reads what `turn` reads too). */
  hook?: { eventId: string; tag: string | undefined };
  /** A turn event: its session's current turn with usage, and its pending approvals. */
  turn?: boolean;
  /** Tool uses it may look up by id, in its session (by sid, or the hook's tag). */
  toolUseIds?: readonly string[];
  /** It may end its session (end, finalize, archive) and show it whole: the session's turns with tools running, resume tokens and usage totals. */
  ending?: boolean;
  /** A session start's session by tag (an absent tag is known absent). */
  tag?: string;
  /** Its session's (by sid) queued messages: a message queued or taken. */
  messages?: boolean;
  /** It may write usage: its session's (by sid, or the hook's tag) usage totals, kept current by the write. */
  usage?: boolean;
  /** It looks at its session's (by sid) running tools: a denied approval ends its tool. */
  runningTools?: boolean;
}

/** A namespace's keys of a batch's reads. */
interface Keys {
  sids: Set<string>;
  tags: Set<string>;
  eventIds: Set<string>;
  turnSids: Set<string>;
  messageSids: Set<string>;
  sessionTags: Set<string>;
  endingSids: Set<string>;
  endingTags: Set<string>;
  usageSids: Set<string>;
  usageTags: Set<string>;
  runningToolSids: Set<string>;
  toolUses: { sid?: string; tag?: string; toolUseId: string }[];
}

/**
 * What a sweep's batch of sessions to end (any namespace) reads, on PostgreSQL: the sessions, then
 * what a session end reads (their current turns, pending approvals, running tools, resume tokens and
 * usage totals), two round trips whatever their number.
 */
export async function prefetchSessionsToEnd(tx: Tx, sids: readonly string[]): Promise<void> {
  const sessions = await prefetchSessionsAnyNamespace(tx, sids);
  await Promise.all([
    prefetchBatchReads(tx, sessions.map((session) => ({ namespace: session.namespace, sid: session.sid, turn: true, ending: true }))),
    prefetchRunsDetached(tx, sids),
  ]);
}

/** What a sweep's timed-out turns show with them (their sessions and usage totals), on PostgreSQL, in one round trip. */
export async function prefetchTurnSessions(tx: Tx, turns: readonly { sid: string; namespace: string | null }[]): Promise<void> {
  await Promise.all([
    prefetchBatchReads(tx, turns.flatMap(({ sid, namespace }) => (namespace === null ? [] : [{ namespace, sid, usage: true }]))),
    // what the sessions' activity shows depends on whether their live runs are detached
    prefetchRunsDetached(tx, turns.map(({ sid }) => sid)),
  ]);
}

/**
 * Reads what a group-committed batch's writes will look up: their sessions, their requestIds and
 * hook event ids, their hook sessions, their current turns with usage, their pending approvals,
 * their hook sessions' message takers and queued messages, the turns their hook prompts may
 * find by prompt id, the tool uses they look up by id, and
 * the namespaces' seq counters: a few statements for the
 * whole batch instead of round trips per write while the write lock is held. They are issued
 * together, so on PostgreSQL (pipeline mode) they go out in one round trip with BEGIN and the
 * locks. PostgreSQL only: SQLite has no round trips, and its rowCache already holds hot sessions
 * across transactions.
 */
export async function prefetchBatchReads(tx: Tx, reads: readonly WriteReads[]): Promise<void> {
  if (tx.dialect !== 'postgres' || reads.length === 0) return;
  const byNamespace = new Map<string, Keys>();
  for (const { namespace, sid, tag, hook, turn, toolUseIds, messages, ending, usage, runningTools } of reads) {
    let keys = byNamespace.get(namespace);
    if (!keys) byNamespace.set(namespace, (keys = { sids: new Set(), tags: new Set(), eventIds: new Set(), turnSids: new Set(), messageSids: new Set(), sessionTags: new Set(), endingSids: new Set(), endingTags: new Set(), usageSids: new Set(), usageTags: new Set(), runningToolSids: new Set(), toolUses: [] }));
    const session = sid !== undefined ? { sid } : hook?.tag !== undefined ? { tag: hook.tag } : undefined;
    if (session) for (const toolUseId of toolUseIds ?? []) keys.toolUses.push({ ...session, toolUseId });
    if (sid !== undefined) keys.sids.add(sid);
    if (sid !== undefined && turn) keys.turnSids.add(sid);
    if (sid !== undefined && messages) keys.messageSids.add(sid);
    if (tag !== undefined) keys.sessionTags.add(tag);
    if (sid !== undefined && ending) keys.endingSids.add(sid);
    if (hook?.tag !== undefined && ending) keys.endingTags.add(hook.tag);
    if (sid !== undefined && (ending || usage)) keys.usageSids.add(sid);
    if (hook?.tag !== undefined && (ending || usage)) keys.usageTags.add(hook.tag);
    if (sid !== undefined && runningTools) keys.runningToolSids.add(sid);
    if (hook) keys.eventIds.add(hook.eventId);
    if (hook?.tag !== undefined) keys.tags.add(hook.tag);
  }
  await Promise.all([
    ...[...byNamespace].flatMap(([namespace, { sids, tags, eventIds, turnSids, messageSids, sessionTags, endingSids, endingTags, usageSids, usageTags, runningToolSids, toolUses }]) => {
      // the sessions whose turns and approvals their events touch: turn events' and hook events'
      const turnSessions = { namespace, sids: [...turnSids], tags: [...tags] };
      const ending = { namespace, sids: [...endingSids], tags: [...endingTags] };
      return [
        prefetchSessions(tx, { namespace, sids: [...sids] }),
        prefetchSessionsByTag(tx, { namespace, tags: [...new Set([...tags, ...sessionTags])] }),
        prefetchHookRows(tx, { namespace, tags: [...tags], eventIds: [...eventIds] }),
        // a hook's prompt finds its turn by prompt id (a second hook of the same turn)
        prefetchHookPromptTurns(tx, { namespace, tags: [...tags] }),
        prefetchCurrentTurns(tx, turnSessions),
        prefetchPendingApprovals(tx, turnSessions),
        // every hook event proves its taker; a hook's stop may take what is queued
        prefetchTakers(tx, { namespace, sids: [], tags: [...tags] }),
        prefetchQueuedMessages(tx, { namespace, sids: [...messageSids], tags: [...tags] }),
        prefetchActivities(tx, { namespace, wanted: toolUses }),
        ...(endingSids.size + endingTags.size === 0 ? [] : [
          prefetchRunningToolTurns(tx, ending),
          prefetchResumeTokens(tx, ending),
        ]),
        // an ending write shows the session whole; a usage write moves its totals
        prefetchSessionUsage(tx, { namespace, sids: [...usageSids], tags: [...usageTags] }),
        prefetchRunningActivities(tx, { namespace, sids: [...runningToolSids] }),
      ];
    }),
    prefetchAppliedRequests(tx, reads.flatMap(({ sid, applied }) => (applied && sid !== undefined ? [{ sid, ...applied }] : []))),
    prefetchSeqCounters(tx, byNamespace.keys()),
  ]);
}
