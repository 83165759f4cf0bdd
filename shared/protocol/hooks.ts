/**
 * POST /api/hooks: the hook bridge's route (docs/hooks.md). The bridge sends the agent's raw hook
 * payloads; the hub maps them through the flavor registry and applies each agent session's events
 * in `seq` order at the time they fired, once per event id.
 */
import { z } from 'zod';
import { MAX_APPROVAL_WAIT_MS } from '../approval-wait.js';
import { idSchema } from './ids.js';
import { JsonObjectSchema } from './json.js';
import { MachineIdSchema } from './machines.js';
import { AGENT_TEXT_CUT_MARK, LIMITS } from './limits.js';
import { TakerSchema } from './messages.js';
import { EpochMsSchema } from './session.js';
import { UsageReportsSchema } from './usage.js';

const HOOK_BATCH_MAX_EVENTS = LIMITS.maxHookBatchEvents;

/** One text block of the agent's messages, as the bridge read it from the transcript. */
export const AgentTextReportSchema = z.object({
  text: z.string().max(LIMITS.maxAgentTextChars + AGENT_TEXT_CUT_MARK.length, `must be at most ${LIMITS.maxAgentTextChars} characters (the bridge cuts longer texts)`),
  /** When the agent wrote it (the transcript line's time, by the agent machine's clock), where known. */
  at: EpochMsSchema.optional(),
  /** Cut by the bridge at LIMITS.maxAgentTextChars. */
  cut: z.literal(true).optional(),
});
export type AgentTextReport = z.infer<typeof AgentTextReportSchema>;

export const HookEventSchema = z.object({
  /** Chosen by the bridge when the hook fired; a re-sent event carries the same id. */
  id: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
  flavor: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  /** When the hook process started (ms), by the agent machine's clock: the time of the activity, turn or session it makes. */
  firedAt: EpochMsSchema,
  /**
   * How long before this request the event fired, by the same clock as `firedAt` (the bridge sets
   * it as it sends). The event is still shown and ordered at `firedAt`; what waits on the hub's clock
   * (whether an approval hook came after its wait was over) is measured from the hub's now minus
   * this, so a skew between the two machines' clocks does not change it. Without it, `firedAt`.
   */
  ageMs: z.number().int().nonnegative().optional(),
  /** Order within the agent session, taken under the bridge's spool lock. */
  seq: z.number().int().nonnegative(),
  /** The agent's hook JSON as it came on stdin. */
  payload: JsonObjectSchema,
  /**
   * The agent waits on this hook for an answer (an approval hook: Claude Code's PermissionRequest):
   * the hub opens an approval and answers with the decision, or nothing when nobody decides in time.
   * A sync event is sent alone, outside the bridge's spool lock.
   */
  sync: z.boolean().optional(),
  /**
   * Sent by the very hook process that fired the event, which prints the answer for the agent: at a
   * message hook (the registry's `messageHooks`, e.g. Claude Code's Stop) the hub hands it the
   * session's queued messages (docs/messages.md). A drainer re-sending a spooled event never sets it.
   */
  take: z.boolean().optional(),
  /**
   * The agent session's taker proof (docs/messages.md, "Who takes a message"): the first one the hub
   * sees for a session is registered; a `take` without the registered key gets no messages.
   */
  taker: TakerSchema.optional(),
  /** How long the bridge listens for a sync event's answer (ms); the hub waits at most this and its own approval wait. */
  waitMs: z.number().int().positive('must be positive').max(MAX_APPROVAL_WAIT_MS, `must be at most ${MAX_APPROVAL_WAIT_MS} (1 hour)`).optional(),
  /**
   * The turn's token usage so far per model, read by the bridge from the agent's own report (Claude
   * Code's transcript: docs/usage.md); applied to the open turn like a runner's turn-stop `usage`.
   */
  usage: UsageReportsSchema.optional(),
  /**
   * The agent's own words written since the bridge's previous read (its text between tool calls, and
   * its closing text at a turn-stop), in order, where the flavor's transcript has them
   * (`transcriptUsage.texts` in shared/flavors.ts): the hub shows them in the turn's timeline, placed
   * before this event's tool use (docs/hooks.md).
   */
  texts: z
    .array(AgentTextReportSchema)
    .max(LIMITS.maxAgentTextsPerEvent, `must hold at most ${LIMITS.maxAgentTextsPerEvent} texts`)
    .refine((texts) => texts.reduce((sum, t) => sum + t.text.length, 0) <= LIMITS.maxAgentTextCharsPerEvent + AGENT_TEXT_CUT_MARK.length, `must hold at most ${LIMITS.maxAgentTextCharsPerEvent} characters together`)
    .optional(),
  /**
   * The agent's computer (`os.hostname()`) and, where a machine runner is installed on it, that
   * machine's id (shared/machine-config.ts): what lets a session started in a terminal be continued
   * from the page by a runner there (docs/machines.md). Stored on the session when it starts.
   */
  host: idSchema(255).optional(),
  machineId: MachineIdSchema.optional(),
  /**
   * The agent process that ran the hook (Linux, where the bridge can tell it from a shell): the pid
   * a run the event opens is the run of, which its keeper's reports name (HookAgentReport.pid).
   */
  agentPid: z.number().int().positive().optional(),
});
export type HookEvent = z.infer<typeof HookEventSchema>;

export const HookBatchSchema = z.object({
  events: z.array(HookEventSchema).min(1, 'must hold at least one event').max(HOOK_BATCH_MAX_EVENTS, `must hold at most ${HOOK_BATCH_MAX_EVENTS} events`),
});
export type HookBatch = z.infer<typeof HookBatchSchema>;

/**
 * Per event: `applied`; `duplicate` (that id was applied before: nothing changed); `ignored` (not
 * mapped for the flavor, or naming no session: `detail` says why; kept as applied); `failed` (the
 * hub refuses it for good, e.g. metadata over 64 KiB: do not re-send); `retry` (not applied now, an
 * earlier event of the batch could not be: re-send it, in order).
 */
export const HookOutcomeSchema = z.enum(['applied', 'duplicate', 'ignored', 'failed', 'retry']);
export type HookOutcome = z.infer<typeof HookOutcomeSchema>;

export const HookResultSchema = z.object({
  id: z.string(),
  outcome: HookOutcomeSchema,
  detail: z.string().optional(),
  /** The hub session the event went to, when it went to one. */
  sid: z.string().optional(),
  /**
   * The JSON the bridge prints for the agent: a `sync` event's decision (absent when nobody decided),
   * or a `take` event's queued messages (absent when none were queued).
   */
  answer: JsonObjectSchema.optional(),
  /** A `take` refused: why this process may not take the session's messages (they stay queued). */
  takeRefused: z.string().optional(),
  /**
   * A `sync` event whose wait the hub ended because it is stopping (its approval `interrupted`): ask
   * again, as a new event, once a hub answers, within the agent's own wait.
   */
  askAgain: z.literal(true).optional(),
});
export type HookResult = z.infer<typeof HookResultSchema>;

export const HookBatchResponseSchema = z.object({ results: z.array(HookResultSchema) });
export type HookBatchResponse = z.infer<typeof HookBatchResponseSchema>;

/**
 * POST /api/hooks/agent: the bridge's keeper (docs/hooks.md, "Agent keeper") says that the agent
 * process running session `tag` lives (`alive`, every `everyMs`) or has just exited without a
 * session end (`gone`: killed, crashed). `gone` ends the session's live hook run as lost
 * (`agent_gone`); a run whose keeper stops reporting is ended by the sweep (`agent_silent`).
 */
export const HookAgentReportSchema = z
  .object({
    flavor: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    tag: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
    agent: z.enum(['alive', 'gone']),
    /**
     * The agent process the keeper watches. A report names the session by its tag, and the agent
     * resumed in a new process is the same session: a run opened by another process (its pid stored)
     * is not this keeper's, and `gone` does not end it.
     */
    pid: z.number().int().positive().optional(),
  })
  .strict();
export type HookAgentReport = z.infer<typeof HookAgentReportSchema>;

export const HookAgentReportResponseSchema = z.object({
  /** The session has a live hook run the report was for; false: nothing to keep (no session yet, or it ended): the keeper may stop. */
  live: z.boolean(),
  /** How often the hub wants `alive` (a third of its alive window, SESSION_HUB_AGENT_ALIVE_MS). */
  everyMs: z.number().int().positive(),
});
export type HookAgentReportResponse = z.infer<typeof HookAgentReportResponseSchema>;
