/**
 * The attention loop on the wire (docs/attention.md): the `/runner` event `attention`, tool
 * approvals as stored and broadcast, and their HTTP routes.
 */
import { z } from 'zod';
import { okAck } from './acks.js';
import { JsonValueSchema } from './json.js';
import { personText } from './person-text.js';
import { ATTENTION_MESSAGE_MAX_CHARS, AttentionKindSchema, AttentionSchema, EpochMsSchema, SidSchema } from './session.js';

const AttentionMessageSchema = z.string().max(ATTENTION_MESSAGE_MAX_CHARS, `must be at most ${ATTENTION_MESSAGE_MAX_CHARS} characters`);
const ToolNameSchema = z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters');
/** One allow-rule update as the agent suggested it (shared/permission-output.ts AllowRuleUpdate). */
const AllowRuleUpdateSchema = z.object({
  type: z.literal('addRules'),
  behavior: z.literal('allow'),
  destination: z.string(),
  rules: z.array(z.object({ toolName: z.string(), ruleContent: z.string().optional() })),
});

/** `attention { sid, kind, message?, tool? }`: `kind: null` clears the session's attention. */
export const AttentionPayloadSchema = z.object({
  sid: SidSchema,
  kind: AttentionKindSchema.nullable(),
  message: AttentionMessageSchema.optional(),
  tool: ToolNameSchema.optional(),
});
export type AttentionPayload = z.infer<typeof AttentionPayloadSchema>;
/** The session's attention as stored after the event (null: cleared). */
export const AttentionAckSchema = okAck({ attention: AttentionSchema.nullable() });
export type AttentionAck = z.infer<typeof AttentionAckSchema>;

/**
 * An approval's life: `pending` until a person decides (`allowed`/`denied`), nobody decides within
 * the waiter's time (`expired`; also one a hub restart found pending), the agent moved on — answered
 * in its terminal — before anyone decided here (`superseded`), the agent's hook stopped waiting
 * (its request closed: the hook process was killed or lost its connection; `abandoned`), or the run
 * of a machine runner that asked was interrupted or ended before anyone decided (`cancelled`: by a
 * person's Interrupt or Stop, or the runner stopping; `message` says which, `decidedBy` who asked), or
 * the hub process its waiter waited on stopped or died before anyone decided (`interrupted`: a hub
 * restart; the agent's hook and the runner ask again once a hub is back, as a new approval).
 */
export const ApprovalStatusSchema = z.enum(['pending', 'allowed', 'denied', 'expired', 'superseded', 'abandoned', 'cancelled', 'interrupted']);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

export const ApprovalAskedBySchema = z.enum(['hook', 'runner']);
export type ApprovalAskedBy = z.infer<typeof ApprovalAskedBySchema>;

export const DecisionSchema = z.enum(['allow', 'deny']);
export type Decision = z.infer<typeof DecisionSchema>;

export const ApprovalSchema = z.object({
  approvalId: z.string(),
  sid: z.string(),
  status: ApprovalStatusSchema,
  tool: z.string(),
  /** The tool's input; past 64 KiB of JSON, its JSON text cut there (`inputTruncated`). */
  input: JsonValueSchema.nullable(),
  inputTruncated: z.boolean(),
  cwd: z.string().nullable(),
  toolUseId: z.string().nullable(),
  createdAt: EpochMsSchema,
  decidedAt: EpochMsSchema.nullable(),
  /** The public id of the token that decided (never the token itself). */
  decidedBy: z.string().nullable(),
  /** That token's label (`token create --label`) when it had one, as it was at the decision. */
  decidedByLabel: z.string().nullable().default(null),
  message: z.string().nullable(),
  /** When its waiter gives up (hub clock): the hook's agent asks in its terminal, a runner asks again (`askedBy`); null: nobody waits on it. */
  expiresAt: EpochMsSchema.nullable().default(null),
  /** An agent's question answered (AskUserQuestion): question text -> the chosen option's label (several joined with ", "). */
  answers: z.record(z.string(), z.string()).optional(),
  /**
   * "Always allow this here": the allow rules the agent itself suggested (Claude Code's
   * `permission_suggestions`, `addRules`), offered where the flavor declares it
   * (`hookConfig.alwaysAllowField`); null: not offered.
   */
  alwaysOffer: z.array(AllowRuleUpdateSchema).nullable().default(null),
  /** Allowed with those rules: the agent keeps allowing them (it saves them as its own "don't ask again" does). */
  always: z.boolean().default(false),
  /**
   * Who waits on it: the agent's hook (`hook`: when nobody decides in time the agent asks in its
   * terminal) or a machine runner (`runner`: it asks the hub again, the agent keeps waiting).
   */
  askedBy: ApprovalAskedBySchema.default('hook'),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** Broadcast body: an approval opened or changed status. */
export const ApprovalBodySchema = z.object({ t: z.literal('approval'), sid: z.string(), approval: ApprovalSchema });
export type ApprovalBody = z.infer<typeof ApprovalBodySchema>;

export const ApprovalParamsSchema = z.object({ sid: z.string().min(1).max(128), approvalId: z.string().min(1).max(128) });
/** Answers to an agent's question: question text -> option label (multiSelect: labels joined with ", "). */
/** A person's answers reach the agent as their words: the rule messages follow (person-text.ts). */
export const AnswersSchema = z.record(z.string().max(4096, 'must be at most 4096 characters'), personText(z.string().max(4096, 'must be at most 4096 characters')));
/** A deny's `message` reaches the agent as the reason: the rule messages follow (issue 33.6). */
/** `always`: with an allow, also the rules the approval offers (`alwaysOffer`). */
export const DecisionRequestSchema = z.object({ decision: DecisionSchema, message: personText(AttentionMessageSchema).optional(), answers: AnswersSchema.optional(), always: z.boolean().optional() });
export type DecisionRequest = z.infer<typeof DecisionRequestSchema>;
/** Pending approvals first (oldest first), then the ended ones (latest end first). */
export const ApprovalsResponseSchema = z.object({ sid: z.string(), approvals: z.array(ApprovalSchema) });
export type ApprovalsResponse = z.infer<typeof ApprovalsResponseSchema>;
/** 409 on a decided, expired or superseded approval: the approval as it stands (with the first decision). */
export const ApprovalConflictSchema = z.object({ error: z.literal('conflict'), message: z.string(), approval: ApprovalSchema });
export type ApprovalConflict = z.infer<typeof ApprovalConflictSchema>;

/** The longest a runner's `approval-ask` waits for a person in one ask (10 minutes); it asks again after. */
export const APPROVAL_ASK_MAX_WAIT_MS = 600_000;

/**
 * `approval-ask` (runner → hub): a tool call of the runner's agent waits for a person. Named by the
 * hub session's sid, so it lands on that session whatever the agent's own id is now (a fresh agent
 * after `resume-failed` has a new one). Acked once a person decided, or with `decision: null` when
 * nobody did within `waitMs` (the approval ends `expired`; the runner may ask again).
 */
export const ApprovalAskPayloadSchema = z.object({
  sid: SidSchema,
  tool: z.string().min(1).max(256),
  toolUseId: z.string().min(1).max(256).nullable(),
  input: JsonValueSchema,
  cwd: z.string().max(4096).nullable(),
  waitMs: z.number().int().min(1).max(APPROVAL_ASK_MAX_WAIT_MS),
});
export type ApprovalAskPayload = z.infer<typeof ApprovalAskPayloadSchema>;
export const ApprovalAskAckSchema = okAck({
  approvalId: z.string(),
  /** `deny` also when the approval was `cancelled` (the run interrupted or ended): the tool must not run. */
  decision: z.enum(['allow', 'deny']).nullable(),
  /** How the approval ended (`cancelled`: nobody decided, the run was interrupted or ended; `message` says why). */
  status: ApprovalStatusSchema.optional(),
  message: z.string().nullable(),
  answers: z.record(z.string(), z.string()).optional(),
});
export type ApprovalAskAck = z.infer<typeof ApprovalAskAckSchema>;
