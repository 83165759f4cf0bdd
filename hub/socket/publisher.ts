import type { HubMetrics } from '../metrics/metrics.js';
import type { OutgoingEvent, Publisher } from '../services/deps.js';
import { rooms } from './rooms.js';
import type { DashboardNamespace, RunnerNamespace } from './types.js';

/**
 * Sends committed events: to the runners in the session's room but the writer (it has its ack),
 * and to dashboards watching the session or its whole namespace.
 */
export function createPublisher(runners: RunnerNamespace, dashboards: DashboardNamespace, metrics: HubMetrics): Publisher {
  return {
    publish(events: readonly OutgoingEvent[], options: { exceptSocketId?: string } = {}) {
      for (const { namespace, sid, event } of events) {
        const toRunners = runners.to(rooms.session(sid));
        (options.exceptSocketId ? toRunners.except(options.exceptSocketId) : toRunners).emit('update', event);
        dashboards.to([rooms.namespace(namespace), rooms.sessionWatchers(sid)]).emit('update', event);
        metrics.broadcasts.inc({ audience: 'runner' });
        metrics.broadcasts.inc({ audience: 'dashboard' });
      }
    },
  };
}
