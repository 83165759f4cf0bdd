/**
 * Sends spooled hook events to the hub, oldest first, stopping at the first one the hub could not
 * be asked about (down, timeout): that one and everything after it stay spooled, in order.
 */
import { getFlavor } from '../../shared/flavors.js';
import { HubRequestError } from '../../shared/client/errors.js';
import type { RunnerClient } from '../../shared/client/runner-client.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { HookEvent } from './payload.js';
import type { SessionRecord } from './spool.js';

export interface DeliveryReport {
  /** Events consumed from the front of the list (delivered, skipped as already delivered, or dropped). */
  delivered: number;
  /** Events the hub refused for good (e.g. invalid_payload); dropped so they cannot block the spool. */
  dropped: { event: HookEvent; error: string }[];
  /** Why delivery stopped early, if it did. */
  stoppedBy?: string;
}

function startMetadata(event: HookEvent): JsonObject {
  const metadata: JsonObject = {};
  if (event.cwd !== null) metadata.path = event.cwd;
  const tokenKey = getFlavor(event.flavor)?.resumeTokenKey;
  if (tokenKey) metadata[tokenKey] = event.tag;
  return metadata;
}

/**
 * A run the hub ended on its own (runner_silent after the idle time for the bridge's detached runs,
 * or runner_lost for a run opened by an older bridge); a later hook shows the agent is alive.
 */
function lostByHub(session: SessionSnapshot): boolean {
  return session.lifecycle.state === 'ended' && session.lifecycle.by === 'hub' && session.lifecycle.lastRun?.status === 'interrupted';
}

export class HookDelivery {
  /** Sessions this process joined already (one session-join per process is enough). */
  private readonly joined = new Set<string>();

  constructor(
    private readonly client: RunnerClient,
    private readonly records: Record<string, SessionRecord>,
    /**
     * Persists `records` at once after a session-start went through: if the process dies before the
     * spool is rewritten (killed mid-delivery), the next one must know that start was delivered, or
     * it sends it again and opens a second run (aborting the open turn).
     */
    private readonly saveRecords: () => void = () => undefined,
  ) {}

  private record(tag: string): SessionRecord {
    return (this.records[tag] ??= { turnsEnded: 0, touchedAt: Date.now() });
  }

  private async start(event: HookEvent, source: HookEvent['source']): Promise<string> {
    // detached: this process exits after the event, and no socket stays on the run between hooks
    const { session } = await this.client.startSession({
      tag: event.tag,
      flavor: event.flavor,
      source: source ?? 'startup',
      metadata: startMetadata(event),
      detached: true,
    });
    const record = this.record(event.tag);
    record.sid = session.sid;
    record.touchedAt = Date.now();
    this.joined.add(session.sid);
    return session.sid;
  }

  /**
   * The hub sid for an event after session-start. Joining makes the session active while this
   * process lives; the run is detached, so the socket closing starts no grace. A session the hub
   * never saw (hooks installed mid-session, spool dir wiped) or one the hub ended between two hooks
   * (runner_silent after the idle time) is (re)opened with a session-start of source `resume`.
   * Null: nothing to attach an end to.
   */
  private async sidFor(event: HookEvent): Promise<string | null> {
    const ending = event.action === 'session-end' || event.action === 'session-finalize';
    const known = this.records[event.tag]?.sid;
    if (known !== undefined) {
      if (this.joined.has(known)) return known;
      try {
        const session = await this.client.joinSession(known);
        this.joined.add(known);
        if (!ending && lostByHub(session)) return await this.startAndSave(event, 'resume');
        return known;
      } catch (error) {
        if (!(error instanceof HubRequestError && error.code === 'not_found')) throw error;
        delete this.records[event.tag]; // e.g. a fresh hub database: start over
      }
    }
    return ending ? null : this.startAndSave(event, 'resume');
  }

  private async startAndSave(event: HookEvent, source: HookEvent['source']): Promise<string> {
    const sid = await this.start(event, source);
    this.saveRecords();
    return sid;
  }

  private async send(event: HookEvent): Promise<void> {
    if (event.action === 'session-start') {
      // a re-delivered session-start would open a second run: skip the one already delivered
      if (this.records[event.tag]?.startEventId === event.id) return;
      await this.start(event, event.source);
      this.record(event.tag).startEventId = event.id;
      this.saveRecords();
      return;
    }
    const sid = await this.sidFor(event);
    if (sid === null) return;
    this.record(event.tag).touchedAt = Date.now();
    switch (event.action) {
      case 'prompt-submit':
        await this.client.submitPrompt({ sid, prompt: event.prompt ?? '', ...(event.promptId ? { promptId: event.promptId } : {}) });
        return;
      case 'tool-use':
        await this.client.toolUse({
          sid,
          tool: event.tool ?? 'unknown',
          ...(event.toolUseId ? { toolUseId: event.toolUseId } : {}),
          input: event.input ?? null,
          output: event.output ?? null,
          at: event.receivedAt,
        });
        return;
      case 'turn-stop':
        await this.client.stopTurn({ sid, ...(event.response !== undefined ? { response: event.response } : {}) });
        return;
      case 'session-end':
        await this.client.endSession({ sid, ...(event.reason !== undefined ? { reason: event.reason } : {}) });
        return;
      case 'session-finalize':
        await this.client.finalizeSession({ sid, ...(event.reason !== undefined ? { reason: event.reason } : {}) });
        return;
    }
  }

  /** Delivers `events` in order until one cannot be (or the deadline passes). */
  async deliver(events: HookEvent[], deadline: number): Promise<DeliveryReport> {
    const report: DeliveryReport = { delivered: 0, dropped: [] };
    for (const event of events) {
      if (Date.now() >= deadline) {
        report.stoppedBy = 'time budget spent';
        break;
      }
      try {
        await this.send(event);
      } catch (error) {
        if (error instanceof HubRequestError && error.final) {
          report.dropped.push({ event, error: `${error.code}: ${error.message}` });
        } else {
          report.stoppedBy = error instanceof Error ? error.message : String(error);
          break;
        }
      }
      report.delivered++;
    }
    return report;
  }
}
