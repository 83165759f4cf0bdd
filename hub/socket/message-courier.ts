import type { Message, RunnerMessageAck } from '../../shared/protocol/messages.js';
import type { MessageCourier } from '../services/deps.js';
import { rooms } from './rooms.js';
import type { RunnerNamespace } from './types.js';

/** How long runners have to ack a message before it stays queued for the next taker. */
export const MESSAGE_ACK_WAIT_MS = 10_000;

const took = (answer: RunnerMessageAck | undefined) => answer?.ok === true;

/**
 * `/runner` event `message { sid, message }` with an ack, to the session's proven runner sockets (its taker key) on every
 * hub process (the adapter carries broadcast acks), or to one socket. Answers from runners that did
 * ack count even when another stayed silent past the wait.
 */
export function createMessageCourier(runners: RunnerNamespace, waitMs = MESSAGE_ACK_WAIT_MS): MessageCourier {
  return {
    offer(message: Message, socketId?: string): Promise<boolean> {
      const payload = { sid: message.sid, message };
      return new Promise((resolve) => {
        if (socketId !== undefined) {
          const socket = runners.sockets.get(socketId);
          if (!socket) return resolve(false);
          socket.timeout(waitMs).emit('message', payload, (error: Error | null, answer: RunnerMessageAck) => resolve(!error && took(answer)));
          return;
        }
        runners
          .to(rooms.takers(message.sid))
          .timeout(waitMs)
          .emit('message', payload, (_error: Error | null, answers: RunnerMessageAck[]) => resolve((answers ?? []).some(took)));
      });
    },
  };
}
