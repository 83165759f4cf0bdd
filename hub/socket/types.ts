import type { Namespace, Server, Socket } from 'socket.io';
import type {
  DashboardClientToServerEvents,
  InterServerEvents,
  RunnerClientToServerEvents,
  RunnerServerToClientEvents,
  ServerToClientEvents,
} from '../../shared/protocol/events.js';
import type { Logger } from '../log.js';
import type { FloodState, TokenBucket } from './rate-limit.js';
import type { TokenIdentity } from '../services/tokens.js';

/** What the handshake middleware learns about a socket. */
export interface SocketData {
  identity: TokenIdentity;
  lastSeq: number | undefined;
  log: Logger;
  bucket: TokenBucket;
  /** Its streak of per-socket refusals (a long one disconnects it). */
  flood: FloodState;
  /** The machine this socket registered (`machine-register`), if any. */
  machineId?: string;
}

type AllClientEvents = RunnerClientToServerEvents & DashboardClientToServerEvents;
export type HubServer = Server<AllClientEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type RunnerNamespace = Namespace<RunnerClientToServerEvents, RunnerServerToClientEvents, InterServerEvents, SocketData>;
export type DashboardNamespace = Namespace<DashboardClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type RunnerSocket = Socket<RunnerClientToServerEvents, RunnerServerToClientEvents, InterServerEvents, SocketData>;
export type DashboardSocket = Socket<DashboardClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type AnySocket = RunnerSocket | DashboardSocket;
