/**
 * The Socket.IO event maps, typed from the zod schemas. The hub builds
 * `Server<…ClientToServer, …ServerToClient>`; the SDK uses the same maps swapped.
 */
import type { MachineAgentSessionReadAck, MachineAgentSessionReadPayload, MachineAgentSessionsAck, MachineAgentSessionsPayload } from './agent-sessions.js';
import type {
  MachineChangesAck,
  MachineChangesPayload,
  MachineCommitAck,
  MachineCommitPayload,
  MachineDiffAck,
  MachineDiffPayload,
  MachineFilesAck,
  MachineFilesPayload,
  MachineWorktreeRemoveAck,
  MachineWorktreeRemovePayload,
} from './work.js';
import type { Ack } from './acks.js';
import type { ApprovalAskAck, ApprovalAskPayload, AttentionAck, AttentionPayload } from './attention.js';
import type { UpdateEvent, ResyncEvent, ServerErrorEvent } from './broadcast.js';
import type { RunnerMessageAck, RunnerMessagePayload } from './messages.js';
import type {
  MachineActionAck,
  MachineDirsAck,
  MachineDirsPayload,
  MachineMkdirPayload,
  MachineInterruptPayload,
  MachineRegisterAck,
  MachineRegisterPayload,
  MachineSpawnAck,
  MachineSpawnPayload,
  MachineStopPayload,
} from './machines.js';
import type { SubscribeAck, SubscribePayload, UnsubscribePayload } from './dashboard.js';
import type {
  OkAck,
  PromptSubmitAck,
  PromptSubmitPayload,
  ResumeFailedAck,
  ResumeFailedPayload,
  SessionAck,
  SessionJoinAck,
  SessionAlivePayload,
  SessionArchivePayload,
  SessionEndPayload,
  SessionJoinPayload,
  SessionStartAck,
  SessionStartPayload,
  ToolUseAck,
  ToolUsePayload,
  TurnStopAck,
  TurnStopPayload,
  UsageAck,
  UsagePayload,
} from './lifecycle.js';
import type { UpdateMetadataAck, UpdateMetadataPayload, UpdateStateAck, UpdateStatePayload } from './versioned.js';

/** Events a runner sends on `/runner`. Every one takes an ack (optional only for `session-alive`). */
export interface RunnerClientToServerEvents {
  'update-metadata': (payload: UpdateMetadataPayload, ack: Ack<UpdateMetadataAck>) => void;
  'update-state': (payload: UpdateStatePayload, ack: Ack<UpdateStateAck>) => void;
  'session-start': (payload: SessionStartPayload, ack: Ack<SessionStartAck>) => void;
  'session-join': (payload: SessionJoinPayload, ack: Ack<SessionJoinAck>) => void;
  'prompt-submit': (payload: PromptSubmitPayload, ack: Ack<PromptSubmitAck>) => void;
  'tool-use': (payload: ToolUsePayload, ack: Ack<ToolUseAck>) => void;
  'turn-stop': (payload: TurnStopPayload, ack: Ack<TurnStopAck>) => void;
  usage: (payload: UsagePayload, ack: Ack<UsageAck>) => void;
  'session-end': (payload: SessionEndPayload, ack: Ack<SessionAck>) => void;
  'session-finalize': (payload: SessionEndPayload, ack: Ack<SessionAck>) => void;
  'session-archive': (payload: SessionArchivePayload, ack: Ack<SessionAck>) => void;
  'session-alive': (payload: SessionAlivePayload, ack?: Ack<OkAck>) => void;
  'resume-failed': (payload: ResumeFailedPayload, ack: Ack<ResumeFailedAck>) => void;
  /** The session waits for a person (`kind`), or no longer (`kind: null`); docs/attention.md. */
  attention: (payload: AttentionPayload, ack: Ack<AttentionAck>) => void;
  /** A tool call of the runner's agent waits for a person; acked with the decision (docs/attention.md). */
  'approval-ask': (payload: ApprovalAskPayload, ack: Ack<ApprovalAskAck>) => void;
  /** A machine runner (machine token only) says which computer it is (section 14). */
  'machine-register': (payload: MachineRegisterPayload, ack: Ack<MachineRegisterAck>) => void;
}

/** Events a dashboard sends on `/dashboard` (read only). */
export interface DashboardClientToServerEvents {
  subscribe: (payload: SubscribePayload, ack: Ack<SubscribeAck>) => void;
  unsubscribe: (payload: UnsubscribePayload, ack: Ack<OkAck>) => void;
}

/** Events the hub sends on both namespaces. */
export interface ServerToClientEvents {
  update: (event: UpdateEvent) => void;
  resync: (event: ResyncEvent) => void;
  error: (event: ServerErrorEvent) => void;
}

/** Events the hub sends on `/runner`: the common ones, and a person's message (acked once the agent has it). */
export interface RunnerServerToClientEvents extends ServerToClientEvents {
  message: (payload: RunnerMessagePayload, ack: (response: RunnerMessageAck) => void) => void;
  /** Section 14, to the socket that registered the machine: each acked by the runner. */
  'machine-spawn': (payload: MachineSpawnPayload, ack: (response: MachineSpawnAck) => void) => void;
  'machine-dirs': (payload: MachineDirsPayload, ack: (response: MachineDirsAck) => void) => void;
  'machine-mkdir': (payload: MachineMkdirPayload, ack: (response: MachineDirsAck) => void) => void;
  'machine-interrupt': (payload: MachineInterruptPayload, ack: (response: MachineActionAck) => void) => void;
  'machine-stop': (payload: MachineStopPayload, ack: (response: MachineActionAck) => void) => void;
  /** Section 15: the work of a session's directory, each acked by the runner. */
  'machine-changes': (payload: MachineChangesPayload, ack: (response: MachineChangesAck) => void) => void;
  'machine-diff': (payload: MachineDiffPayload, ack: (response: MachineDiffAck) => void) => void;
  'machine-files': (payload: MachineFilesPayload, ack: (response: MachineFilesAck) => void) => void;
  'machine-commit': (payload: MachineCommitPayload, ack: (response: MachineCommitAck) => void) => void;
  'machine-worktree-remove': (payload: MachineWorktreeRemovePayload, ack: (response: MachineWorktreeRemoveAck) => void) => void;
  /** Section 16: the sessions the agents keep on the machine. */
  'machine-agent-sessions': (payload: MachineAgentSessionsPayload, ack: (response: MachineAgentSessionsAck) => void) => void;
  'machine-agent-session-read': (payload: MachineAgentSessionReadPayload, ack: (response: MachineAgentSessionReadAck) => void) => void;
}

/** Committed events as one hub process hands them to the others (the cluster publisher): a batch's, in seq order. */
export interface CommittedBatch {
  events: { namespace: string; sid: string; event: UpdateEvent }[];
  /**
   * The writer's socket, sent by hubs of earlier versions. It lives on the sending process, so no
   * receiver has it: processes now leave it out and send a whole committed batch in one message.
   */
  exceptSocketId?: string;
}

/** The hub's processes talk to each other through the adapter only (`serverSideEmit`). */
export interface InterServerEvents {
  'committed-events': (batch: CommittedBatch) => void;
  /** "Which of these sessions have a runner socket on your process?" — answered with that process's id and sids. */
  'runner-sockets': (sids: string[], answer: (held: RunnersHeld) => void) => void;
  /** A process that starts listening announces itself: the others send it their committed batches from then on. */
  'hub-hello': () => void;
  /** "Until when does a message waiter of this agent session wait on your process?" — answered with the moment (epoch ms), or null: none waits there. */
  'message-waiters': (key: { namespace: string; tag: string }, answer: (until: number | null) => void) => void;
  /** "Which machines of this namespace have their socket on your process?" — answered with their ids. */
  'machines-online': (namespace: string, answer: (machineIds: string[]) => void) => void;
}

/** A hub process's answer to `runner-sockets`. */
export interface RunnersHeld {
  hubId: string;
  sids: string[];
}

/** The ack an event map's listener answers with, e.g. `AckOf<RunnerClientToServerEvents['session-start']>`. */
export type AckOf<Listener> = Listener extends (payload: never, ack: (response: infer R) => void) => void
  ? R
  : Listener extends (payload: never, ack?: (response: infer R) => void) => void
    ? R
    : never;

export type RunnerEventName = keyof RunnerClientToServerEvents;
export type DashboardEventName = keyof DashboardClientToServerEvents;
