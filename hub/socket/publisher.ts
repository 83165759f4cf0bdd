import type { HubMetrics } from '../metrics/metrics.js';
import type { OutgoingEvent, Publisher } from '../services/deps.js';
import { rooms } from './rooms.js';
import type { DashboardNamespace, RunnerNamespace } from './types.js';

/**
 * True when some socket of the namespace, other than `except`, is in one of the rooms. Socket.IO
 * encodes a packet before it looks for recipients, so an emit to nobody still costs a JSON encode
 * per write. This reads the in-process adapter's rooms: with a cluster adapter, other processes'
 * sockets would not show here, so this check must go when one is used.
 */
function hasAudience(namespace: RunnerNamespace | DashboardNamespace, roomNames: readonly string[], except?: string): boolean {
  for (const room of roomNames) {
    const members = namespace.adapter.rooms.get(room);
    if (members && (members.size > 1 || (members.size === 1 && !(except !== undefined && members.has(except))))) return true;
  }
  return false;
}

/**
 * Sends committed events: to the runners in the session's room but the writer (it has its ack),
 * and to dashboards watching the session or its whole namespace.
 */
export function createPublisher(runners: RunnerNamespace, dashboards: DashboardNamespace, metrics: HubMetrics): Publisher {
  return {
    publish(events: readonly OutgoingEvent[], options: { exceptSocketId?: string } = {}) {
      for (const { namespace, sid, event } of events) {
        const runnerRoom = rooms.session(sid);
        if (hasAudience(runners, [runnerRoom], options.exceptSocketId)) {
          const toRunners = runners.to(runnerRoom);
          (options.exceptSocketId ? toRunners.except(options.exceptSocketId) : toRunners).emit('update', event);
          metrics.broadcasts.inc({ audience: 'runner' });
        }
        const dashboardRooms = [rooms.namespace(namespace), rooms.sessionWatchers(sid)];
        if (hasAudience(dashboards, dashboardRooms)) {
          dashboards.to(dashboardRooms).emit('update', event);
          metrics.broadcasts.inc({ audience: 'dashboard' });
        }
      }
    },
  };
}
