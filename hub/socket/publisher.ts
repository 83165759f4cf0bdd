import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { HubMetrics } from '../metrics/metrics.js';
import type { OutgoingEvent, Publisher } from '../services/deps.js';
import { rooms } from './rooms.js';
import type { DashboardNamespace, RunnerNamespace } from './types.js';

/** The sockets of this process an event can go to, and where deliveries are counted. */
export interface LocalAudience {
  runners: RunnerNamespace;
  dashboards: DashboardNamespace;
  metrics: HubMetrics;
}

/**
 * True when some socket of the namespace, other than `except`, is in one of the rooms. Socket.IO
 * encodes a packet before it looks for recipients, so an emit to nobody still costs a JSON encode
 * per write. `adapter.rooms` holds this process's sockets only, even with the Redis adapter: that is
 * why delivery below emits to local sockets only (other processes deliver through their sequencer).
 */
function hasAudience(namespace: RunnerNamespace | DashboardNamespace, roomNames: readonly string[], except?: string): boolean {
  for (const room of roomNames) {
    const members = namespace.adapter.rooms.get(room);
    if (members && (members.size > 1 || (members.size === 1 && !(except !== undefined && members.has(except))))) return true;
  }
  return false;
}

/**
 * A socket's live updates of one room while it catches up (subscribe, session-join): its snapshot or
 * replay covers every event through `floor`, so a live one at or below it is not sent again; while
 * `held` is set (the replay is being read), live ones wait there and follow the replay. With several
 * processes the live stream of a tenant can lag the database (events still on their way through
 * Redis, or read from the log), so a socket that catches up from the database would otherwise get
 * them twice, or before its replay.
 */
interface Gate {
  floor: number;
  held: UpdateEvent[] | undefined;
}

/** Per namespace object: socket id -> room -> gate. Usually empty; a gate goes once a later event passes it. */
const gatesByNamespace = new WeakMap<object, Map<string, Map<string, Gate>>>();

/** Per namespace object: told when a socket of a tenant was brought up to a seq from the database. */
const caughtUpListeners = new WeakMap<object, (tenant: string, seq: number) => void>();

/** `listener` hears of every floor set on a socket of `namespace` (the cluster's sequencer starts there). */
export function onSocketCaughtUp(namespace: object, listener: (tenant: string, seq: number) => void): void {
  caughtUpListeners.set(namespace, listener);
}

interface GatedSocket {
  id: string;
  nsp: object;
  data: { identity: { namespace: string } };
  emit(event: 'update', body: UpdateEvent): unknown;
  once(event: 'disconnect', listener: () => void): unknown;
}

function gateOf(socket: GatedSocket, room: string): Gate {
  let gates = gatesByNamespace.get(socket.nsp);
  if (!gates) gatesByNamespace.set(socket.nsp, (gates = new Map()));
  let ofSocket = gates.get(socket.id);
  if (!ofSocket) {
    gates.set(socket.id, (ofSocket = new Map()));
    socket.once('disconnect', () => gates.delete(socket.id));
  }
  let gate = ofSocket.get(room);
  if (!gate) ofSocket.set(room, (gate = { floor: Number.NEGATIVE_INFINITY, held: undefined }));
  return gate;
}

/** Live updates of `room` wait for `releaseLive` (call before joining the room, then read the replay). */
export function holdLive(socket: GatedSocket, room: string): void {
  gateOf(socket, room).held ??= [];
}

/**
 * Live updates of `room` resume: those held above `through` are sent now (after the replay), and from
 * now on only those above it. `through` undefined: everything held is sent (no replay to dedupe by).
 */
export function releaseLive(socket: GatedSocket, room: string, through: number | undefined): void {
  const gate = gateOf(socket, room);
  const held = gate.held ?? [];
  gate.held = undefined;
  if (through !== undefined) {
    gate.floor = Math.max(gate.floor, through);
    caughtUpListeners.get(socket.nsp)?.(socket.data.identity.namespace, through);
  }
  for (const event of held) if (event.seq > gate.floor) socket.emit('update', event);
}

/** The socket's snapshots of `room` include every event through `seq`: live updates at or below it are not sent. */
export function liveAfter(socket: GatedSocket, room: string, seq: number): void {
  const gate = gateOf(socket, room);
  gate.floor = Math.max(gate.floor, seq);
  caughtUpListeners.get(socket.nsp)?.(socket.data.identity.namespace, seq);
}

/** Sockets of the audience not to send `event` to now (their gates hold or cover it). */
function gated(namespace: RunnerNamespace | DashboardNamespace, roomNames: readonly string[], event: UpdateEvent, except?: string): string[] {
  const gates = gatesByNamespace.get(namespace);
  if (!gates || gates.size === 0) return [];
  const skipped: string[] = [];
  for (const [socketId, ofSocket] of gates) {
    if (socketId === except) continue;
    let open = false;
    let holdIn: UpdateEvent[] | undefined;
    let covered = false;
    for (const room of roomNames) {
      if (!namespace.adapter.rooms.get(room)?.has(socketId)) continue;
      const gate = ofSocket.get(room);
      if (gate?.held) holdIn ??= gate.held;
      else if (gate && event.seq <= gate.floor) covered = true;
      else {
        // past its floor (events come in seq order): this room's gate is done
        if (gate) ofSocket.delete(room);
        open = true;
      }
    }
    if (ofSocket.size === 0) gates.delete(socketId);
    if (open) continue;
    if (holdIn) holdIn.push(event);
    if (holdIn || covered) skipped.push(socketId);
  }
  return skipped;
}

/**
 * Sends one committed event to this process's sockets: the runners in the session's room but the
 * writer (it has its ack), and dashboards watching the session or its whole namespace.
 */
export function deliverToLocalSockets(audience: LocalAudience, { namespace, sid, event }: OutgoingEvent, exceptSocketId?: string): void {
  const { runners, dashboards, metrics } = audience;
  const runnerRoom = rooms.session(sid);
  if (hasAudience(runners, [runnerRoom], exceptSocketId)) {
    const skipped = gated(runners, [runnerRoom], event, exceptSocketId);
    if (exceptSocketId) skipped.push(exceptSocketId);
    runners.local.to(runnerRoom).except(skipped).emit('update', event);
    metrics.broadcasts.inc({ audience: 'runner' });
  }
  const dashboardRooms = [rooms.namespace(namespace), rooms.sessionWatchers(sid)];
  if (hasAudience(dashboards, dashboardRooms)) {
    dashboards.local.to(dashboardRooms).except(gated(dashboards, dashboardRooms, event)).emit('update', event);
    metrics.broadcasts.inc({ audience: 'dashboard' });
  }
}

/** The single-process publisher: committed events go straight to this process's sockets. */
export function createPublisher(runners: RunnerNamespace, dashboards: DashboardNamespace, metrics: HubMetrics): Publisher {
  const audience: LocalAudience = { runners, dashboards, metrics };
  return {
    publish(events: readonly OutgoingEvent[], options: { exceptSocketId?: string } = {}) {
      for (const outgoing of events) deliverToLocalSockets(audience, outgoing, options.exceptSocketId);
    },
  };
}
