/**
 * Events no handler listens to on a namespace still get their answer (spec section 2: the ack is
 * always called): a `/runner` event sent on the read-only `/dashboard` is `forbidden`, any other
 * unknown event is `invalid_payload`. Without an ack the answer is a server `error` event.
 */
import { hubError } from '../../shared/errors.js';
import type { RunnerClientToServerEvents } from '../../shared/protocol/events.js';
import { ackOf, errorAck, type AckKind } from './handle.js';
import type { AnySocket, DashboardSocket } from './types.js';

/** Every `/runner` event and the ack family it answers with. */
const RUNNER_EVENTS: Record<keyof RunnerClientToServerEvents, AckKind> = {
  'update-metadata': 'versioned',
  'update-state': 'versioned',
  'session-start': 'ok',
  'session-join': 'ok',
  'prompt-submit': 'ok',
  'tool-use': 'ok',
  'turn-stop': 'ok',
  usage: 'ok',
  'session-end': 'ok',
  'session-finalize': 'ok',
  'session-archive': 'ok',
  'session-alive': 'ok',
  'resume-failed': 'ok',
  attention: 'ok',
  'approval-ask': 'ok',
  'machine-register': 'ok',
};

const isRunnerEvent = (event: string): event is keyof RunnerClientToServerEvents => Object.prototype.hasOwnProperty.call(RUNNER_EVENTS, event);

export function answerUnhandledEvents(socket: AnySocket, namespace: '/runner' | '/dashboard'): void {
  socket.onAny((event: unknown, ...args: unknown[]) => {
    const name = String(event);
    // socket.io itself listens to 'error' on every socket (a no-op): that listener handles nothing
    if (name !== 'error' && (socket as unknown as { listenerCount(event: string): number }).listenerCount(name) > 0) return;
    // a client picks the name: never log or echo more than a short piece of it
    const shown = name.slice(0, 100);
    const ack = ackOf(args);
    const error = isRunnerEvent(name)
      ? hubError.forbidden(`${name} is a /runner event; ${namespace} is read only`)
      : hubError.invalidPayload(`event: unknown event ${JSON.stringify(name).slice(0, 100)} on ${namespace}`);
    socket.data.log.debug({ event: shown, code: error.code }, 'event rejected');
    const kind = isRunnerEvent(name) ? RUNNER_EVENTS[name] : 'ok';
    if (ack) ack(errorAck(kind, error.code, error.message));
    else (socket as DashboardSocket).emit('error', { code: error.code, message: error.message, event: shown });
  });
}
