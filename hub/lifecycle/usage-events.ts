/**
 * Reported token usage into turns (docs/usage.md). A report is the turn's totals so far per model;
 * each count keeps the larger of the stored and the reported value, so a report sent twice, late or
 * out of order never lowers or doubles a total. The cost is the hub's: the price table's prices for
 * the merged tokens (none for a model without a price).
 */
import { hubError } from '../../shared/errors.js';
import type { UsagePayload } from '../../shared/protocol/lifecycle.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import type { ModelUsage, UsageReport } from '../../shared/protocol/usage.js';
import { runWrite, sessionWrite, type ChangeSet } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { requireSession } from '../services/require-session.js';
import type { StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { getLatestPromptTurn, getTurn, touchTurn } from '../store/turns.js';
import { putTurnUsage } from '../store/usage.js';
import { builtInPrices, type PriceTable } from '../usage/prices.js';
import { noteActivity } from './transitions.js';
import { turnForActivity } from './turn-activity.js';

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

const pricesOf = (deps: Pick<HubDeps, 'prices'>): PriceTable => deps.prices ?? builtInPrices();

/** The entries of `stored` that the reports raise, merged and priced; [] when nothing changes. */
export function mergeUsage(prices: PriceTable, stored: readonly ModelUsage[], reports: readonly UsageReport[]): ModelUsage[] {
  const changed: ModelUsage[] = [];
  for (const report of reports) {
    const held = stored.find((entry) => entry.model === report.model);
    const merged = { model: report.model } as UsageReport & Record<(typeof TOKEN_FIELDS)[number], number>;
    for (const field of TOKEN_FIELDS) merged[field] = Math.max(held?.[field] ?? 0, report[field] ?? 0);
    if (held && TOKEN_FIELDS.every((field) => merged[field] === held[field])) continue;
    changed.push(prices.price(merged));
  }
  return changed;
}

/** Merges the reports into the turn's usage; answers whether any count changed. */
export async function addTurnUsage(
  tx: Tx,
  changes: ChangeSet,
  deps: Pick<HubDeps, 'prices'>,
  input: { session: StoredSession; turn: TurnSummary; reports: readonly UsageReport[] },
): Promise<boolean> {
  const { session, turn } = input;
  const changed = mergeUsage(pricesOf(deps), turn.usage, input.reports);
  if (changed.length === 0) return false;
  await putTurnUsage(tx, { turnId: turn.turnId, sid: session.sid, namespace: session.namespace, openedAt: turn.openedAt }, changed);
  changes.usageChanged(session.sid);
  return true;
}

/**
 * Usage that came after its turn's stop (a session-end hook's: the agent wrote its last message
 * after the stop hook read the transcript): the totals of the session's latest prompt's turn.
 */
export async function addLatestTurnUsage(tx: Tx, changes: ChangeSet, deps: Pick<HubDeps, 'prices'>, input: { session: StoredSession; reports: readonly UsageReport[] }): Promise<void> {
  const latest = await getLatestPromptTurn(tx, input.session.sid);
  if (latest === undefined || !(await addTurnUsage(tx, changes, deps, { session: input.session, turn: latest, reports: input.reports }))) return;
  changes.turn(input.session.namespace, (await getTurn(tx, latest.turnId))!);
}

/** `usage`: a report for a named turn, else the open one (else as tool-use: a recent or a recovery turn). */
export function reportUsage(deps: HubDeps, actor: Actor, payload: UsagePayload): Promise<{ turn: TurnSummary }> {
  return runWrite(
    deps,
    async (tx, changes, now) => {
      const session = await requireSession(tx, actor, payload.sid);
      let turn: TurnSummary | undefined;
      if (payload.turnId !== undefined) {
        turn = await getTurn(tx, payload.turnId);
        if (turn?.sid !== session.sid) throw hubError.invalidPayload(`turnId: no turn ${payload.turnId} in session ${session.sid}`);
      } else {
        turn = await turnForActivity(tx, session, now);
      }
      // a report is the turn's activity even when it raises no count
      await touchTurn(tx, { turnId: turn.turnId, at: now });
      if (await addTurnUsage(tx, changes, deps, { session, turn, reports: payload.usage })) {
        turn = (await getTurn(tx, turn.turnId))!;
        changes.turn(session.namespace, turn);
      }
      await noteActivity(tx, changes, session, now);
      return { turn };
    },
    sessionWrite(actor, payload.sid, { usage: true }),
  );
}
