/**
 * Every Socket.IO event of the protocol with the zod schemas of its payload and ack: the source of
 * the hub's generated event listing (`GET /api/socket-events.json`, docs/protocol.md), for a runner
 * or dashboard written in another language. The mapped types below make the compiler hold it to the
 * event maps the hub's server is typed with (events.ts): an event missing here, or one too many,
 * does not compile.
 */
import { MachineAgentSessionReadAckSchema, MachineAgentSessionReadPayloadSchema, MachineAgentSessionsAckSchema, MachineAgentSessionsPayloadSchema } from './agent-sessions.js';
import {
  MachineChangesAckSchema,
  MachineChangesPayloadSchema,
  MachineCommitAckSchema,
  MachineCommitPayloadSchema,
  MachineDiffAckSchema,
  MachineDiffPayloadSchema,
  MachineFilesAckSchema,
  MachineFilesPayloadSchema,
  MachineWorktreeRemoveAckSchema,
  MachineWorktreeRemovePayloadSchema,
} from './work.js';
import type { z } from 'zod';
import { ApprovalAskAckSchema, ApprovalAskPayloadSchema, AttentionAckSchema, AttentionPayloadSchema } from './attention.js';
import { ResyncEventSchema, ServerErrorEventSchema, UpdateEventSchema } from './broadcast.js';
import { SubscribeAckSchema, SubscribePayloadSchema, UnsubscribePayloadSchema } from './dashboard.js';
import type { DashboardClientToServerEvents, RunnerClientToServerEvents, RunnerServerToClientEvents, ServerToClientEvents } from './events.js';
import {
  OkAckSchema,
  PromptSubmitAckSchema,
  PromptSubmitPayloadSchema,
  ResumeFailedAckSchema,
  ResumeFailedPayloadSchema,
  SessionAckSchema,
  SessionAlivePayloadSchema,
  SessionArchivePayloadSchema,
  SessionEndPayloadSchema,
  SessionJoinPayloadSchema,
  SessionStartAckSchema,
  SessionStartPayloadSchema,
  ToolUseAckSchema,
  ToolUsePayloadSchema,
  TurnStopAckSchema,
  TurnStopPayloadSchema,
  UsageAckSchema,
  UsagePayloadSchema,
} from './lifecycle.js';
import {
  MachineActionAckSchema,
  MachineDirsAckSchema,
  MachineDirsPayloadSchema,
  MachineMkdirPayloadSchema,
  MachineInterruptPayloadSchema,
  MachineRegisterAckSchema,
  MachineRegisterPayloadSchema,
  MachineSpawnAckSchema,
  MachineSpawnPayloadSchema,
  MachineStopPayloadSchema,
} from './machines.js';
import { RunnerMessageAckSchema, RunnerMessagePayloadSchema } from './messages.js';
import { UpdateMetadataAckSchema, UpdateMetadataPayloadSchema, UpdateStateAckSchema, UpdateStatePayloadSchema } from './versioned.js';

export interface EventSchemas {
  /** What the event carries. */
  payload: z.ZodType;
  /** What the receiver answers through Socket.IO's acknowledgement, where it answers. */
  ack?: z.ZodType;
  /** One line on when it is sent. */
  about: string;
}
type Catalog<Events> = { [Name in keyof Events]-?: EventSchemas };

const SERVER_TO_CLIENT: Catalog<ServerToClientEvents> = {
  update: { payload: UpdateEventSchema, about: 'a committed change of a session the client follows, in seq order (no ack)' },
  resync: { payload: ResyncEventSchema, about: 'the client missed events it cannot replay: read the state again (subscribe / session-join)' },
  error: { payload: ServerErrorEventSchema, about: 'the hub refuses the client (e.g. a revoked token, a socket over its rate limit), then disconnects it' },
};

/** `/runner`: what an agent's runner sends (each with an ack) and receives. */
export const RUNNER_EVENTS: { clientToServer: Catalog<RunnerClientToServerEvents>; serverToClient: Catalog<RunnerServerToClientEvents> } = {
  clientToServer: {
    'update-metadata': { payload: UpdateMetadataPayloadSchema, ack: UpdateMetadataAckSchema, about: 'a versioned merge of the session\'s metadata (expectedVersion)' },
    'update-state': { payload: UpdateStatePayloadSchema, ack: UpdateStateAckSchema, about: 'a versioned replace of the agent\'s state' },
    'session-start': { payload: SessionStartPayloadSchema, ack: SessionStartAckSchema, about: 'start (or find, by tag) a session and open a run' },
    'session-join': { payload: SessionJoinPayloadSchema, ack: SessionAckSchema, about: 'a runner (re)attaching to a session it knows' },
    'prompt-submit': { payload: PromptSubmitPayloadSchema, ack: PromptSubmitAckSchema, about: 'a turn begins with a prompt' },
    'tool-use': { payload: ToolUsePayloadSchema, ack: ToolUseAckSchema, about: 'a tool call started or finished in the open turn' },
    'turn-stop': { payload: TurnStopPayloadSchema, ack: TurnStopAckSchema, about: 'the turn ended (with its usage)' },
    usage: { payload: UsagePayloadSchema, ack: UsageAckSchema, about: 'tokens per model, outside a turn-stop' },
    'session-end': { payload: SessionEndPayloadSchema, ack: SessionAckSchema, about: 'the agent says its session ended (a hint: a later turn reopens it)' },
    'session-finalize': { payload: SessionEndPayloadSchema, ack: SessionAckSchema, about: 'the session ended for good' },
    'session-archive': { payload: SessionArchivePayloadSchema, ack: SessionAckSchema, about: 'archive the session, with a reason' },
    'session-alive': { payload: SessionAlivePayloadSchema, ack: OkAckSchema, about: 'a heartbeat (ack optional)' },
    'resume-failed': { payload: ResumeFailedPayloadSchema, ack: ResumeFailedAckSchema, about: 'resuming with the stored token failed' },
    attention: { payload: AttentionPayloadSchema, ack: AttentionAckSchema, about: 'the session waits for a person (kind), or no longer (kind: null)' },
    'approval-ask': { payload: ApprovalAskPayloadSchema, ack: ApprovalAskAckSchema, about: 'a tool call of the runner\'s agent waits for a person, by sid; acked with the decision' },
    'machine-register': { payload: MachineRegisterPayloadSchema, ack: MachineRegisterAckSchema, about: 'a machine runner registers its computer (machine token; docs/machines.md)' },
  },
  serverToClient: {
    ...SERVER_TO_CLIENT,
    message: { payload: RunnerMessagePayloadSchema, ack: RunnerMessageAckSchema, about: 'a person\'s message for the agent; ack once the agent has it' },
    'machine-spawn': { payload: MachineSpawnPayloadSchema, ack: MachineSpawnAckSchema, about: 'start (or resume) an agent on the machine; ack with its sid once its session is on the hub' },
    'machine-dirs': { payload: MachineDirsPayloadSchema, ack: MachineDirsAckSchema, about: 'list the subdirectories of one directory under the machine\'s roots' },
    'machine-mkdir': { payload: MachineMkdirPayloadSchema, ack: MachineDirsAckSchema, about: 'make one new directory whose parent exists under the machine\'s roots' },
    'machine-interrupt': { payload: MachineInterruptPayloadSchema, ack: MachineActionAckSchema, about: 'end the current turn of an agent the machine drives' },
    'machine-stop': { payload: MachineStopPayloadSchema, ack: MachineActionAckSchema, about: 'end an agent the machine drives, its whole process tree' },
    'machine-changes': { payload: MachineChangesPayloadSchema, ack: MachineChangesAckSchema, about: 'the working tree of a session\'s directory against HEAD: files, counts, branch (section 15)' },
    'machine-diff': { payload: MachineDiffPayloadSchema, ack: MachineDiffAckSchema, about: 'one changed file\'s unified diff, or every change\'s (1 MiB at most)' },
    'machine-files': { payload: MachineFilesPayloadSchema, ack: MachineFilesAckSchema, about: 'a directory\'s entries or a file\'s text under the session\'s directory, never outside the roots' },
    'machine-commit': { payload: MachineCommitPayloadSchema, ack: MachineCommitAckSchema, about: 'commit the named changes with the machine\'s git identity, and push when asked' },
    'machine-worktree-remove': { payload: MachineWorktreeRemovePayloadSchema, ack: MachineWorktreeRemoveAckSchema, about: 'remove an ended session\'s worktree (its branch is kept)' },
    'machine-agent-sessions': { payload: MachineAgentSessionsPayloadSchema, ack: MachineAgentSessionsAckSchema, about: 'the sessions the agents keep on the machine, under its roots, newest first (section 16)' },
    'machine-agent-session-read': { payload: MachineAgentSessionReadPayloadSchema, ack: MachineAgentSessionReadAckSchema, about: 'one agent session read whole and bounded, for an import' },
  },
};

/** `/dashboard`: what a watching client sends (read only) and receives. */
export const DASHBOARD_EVENTS: { clientToServer: Catalog<DashboardClientToServerEvents>; serverToClient: Catalog<ServerToClientEvents> } = {
  clientToServer: {
    subscribe: { payload: SubscribePayloadSchema, ack: SubscribeAckSchema, about: 'follow sessions (all, or by sid), replaying from sinceSeq' },
    unsubscribe: { payload: UnsubscribePayloadSchema, ack: OkAckSchema, about: 'stop following sessions (all, or by sid)' },
  },
  serverToClient: SERVER_TO_CLIENT,
};
