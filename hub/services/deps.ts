import type { MachineAgentSessionReadAck, MachineAgentSessionReadPayload, MachineAgentSessionsAck, MachineAgentSessionsPayload } from '../../shared/protocol/agent-sessions.js';
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
} from '../../shared/protocol/work.js';
import type { Role } from '../../shared/protocol/auth.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Message } from '../../shared/protocol/messages.js';
import type {
  MachineActionAck,
  MachineDirsAck,
  MachineDirsPayload,
  MachineMkdirPayload,
  MachineInterruptPayload,
  MachineSpawnAck,
  MachineSpawnPayload,
  MachineStopPayload,
} from '../../shared/protocol/machines.js';
import type { Writer } from '../../shared/protocol/session.js';
import type { Clock } from '../clock.js';
import type { HubConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import type { PriceTable } from '../usage/prices.js';

/** An event on its way out: who may see it is decided by namespace and session. */
export interface OutgoingEvent {
  namespace: string;
  sid: string;
  event: UpdateEvent;
}

/** Delivers committed events to sockets; the socket layer implements it over Socket.IO rooms. */
export interface Publisher {
  publish(events: readonly OutgoingEvent[], options?: { exceptSocketId?: string }): void;
  /** Stops timers it holds (the cluster publisher's gap waits). */
  close?(): void;
}

/** Runner sockets on other hub processes (cluster); one process alone holds all of them. */
export interface RunnerPresence {
  /** Of these sessions, the ones some other hub process holds a runner socket for, with that process's id. */
  heldElsewhere(sids: readonly string[]): Promise<Map<string, string>>;
}

/** Message waiters (the hook bridge's `--wake`) on other hub processes (cluster); one process alone holds all of them. */
export interface WaiterPresence {
  /** When the latest-ending waiter of this agent session on another process gives up; undefined: none waits elsewhere now. */
  untilElsewhere(namespace: string, tag: string): Promise<number | undefined>;
}

/** Hands a person's message to the runner sockets of its session (the socket layer: `/runner` event `message`). */
export interface MessageCourier {
  /** True once some runner socket (or the one given) answered `{ ok: true }` within the courier's wait. */
  offer(message: Message, socketId?: string): Promise<boolean>;
}

/** The hub → runner events of spec section 14, each with its payload and its runner's ack. */
export interface MachineCalls {
  'machine-spawn': [MachineSpawnPayload, MachineSpawnAck];
  'machine-dirs': [MachineDirsPayload, MachineDirsAck];
  'machine-mkdir': [MachineMkdirPayload, MachineDirsAck];
  'machine-interrupt': [MachineInterruptPayload, MachineActionAck];
  'machine-stop': [MachineStopPayload, MachineActionAck];
  'machine-changes': [MachineChangesPayload, MachineChangesAck];
  'machine-diff': [MachineDiffPayload, MachineDiffAck];
  'machine-files': [MachineFilesPayload, MachineFilesAck];
  'machine-commit': [MachineCommitPayload, MachineCommitAck];
  'machine-worktree-remove': [MachineWorktreeRemovePayload, MachineWorktreeRemoveAck];
  'machine-agent-sessions': [MachineAgentSessionsPayload, MachineAgentSessionsAck];
  'machine-agent-session-read': [MachineAgentSessionReadPayload, MachineAgentSessionReadAck];
}

/** Reaches machine runners' sockets on whichever hub process holds them (the socket layer, over the adapter). */
export interface MachineLink {
  /** The machines of the namespace whose socket is connected to some hub process now. */
  onlineIds(namespace: string): Promise<Set<string>>;
  /**
   * Sends an event to the socket that registered the machine and waits for its ack: undefined when
   * no socket holds the machine (offline); rejects when it did not answer within `timeoutMs`.
   */
  ask<E extends keyof MachineCalls>(machineId: string, event: E, payload: MachineCalls[E][0], timeoutMs: number): Promise<MachineCalls[E][1] | undefined>;
}

/** What every service needs; built once by the composition root. */
export interface HubDeps {
  store: Store;
  /** This process, among the hub processes sharing the store (runs record which one holds their socket). */
  hubId: string;
  clock: Clock;
  config: HubConfig;
  log: Logger;
  publisher: Publisher;
  /** Runner sockets held by other hub processes; unset: this process is the only one. */
  runnerPresence?: RunnerPresence;
  /** Message waiters held by other hub processes; unset: this process is the only one. */
  waiterPresence?: WaiterPresence;
  /** Runner sockets for people's messages; unset: only hooks take them. */
  courier?: MessageCourier;
  /** Machine runners' sockets (section 14); unset: no machine can be reached (answers machine_offline). */
  machines?: MachineLink;
  /** Prices for the cost of reported usage; unset: the built-in table (hub/usage/price-table.ts). */
  prices?: PriceTable;
}

/** Who is asking: the token's namespace and role, how writes are attributed, and the socket to skip. */
export interface Actor {
  namespace: string;
  role: Role;
  by: Writer;
  socketId?: string;
}
