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
 * Sends one committed event to this process's sockets: the runners in the session's room but the
 * writer (it has its ack), and dashboards watching the session or its whole namespace.
 */
export function deliverToLocalSockets(audience: LocalAudience, { namespace, sid, event }: OutgoingEvent, exceptSocketId?: string): void {
  const { runners, dashboards, metrics } = audience;
  const runnerRoom = rooms.session(sid);
  if (hasAudience(runners, [runnerRoom], exceptSocketId)) {
    const toRunners = runners.local.to(runnerRoom);
    (exceptSocketId ? toRunners.except(exceptSocketId) : toRunners).emit('update', event);
    metrics.broadcasts.inc({ audience: 'runner' });
  }
  const dashboardRooms = [rooms.namespace(namespace), rooms.sessionWatchers(sid)];
  if (hasAudience(dashboards, dashboardRooms)) {
    dashboards.local.to(dashboardRooms).emit('update', event);
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
