import type { AnySocket } from './types.js';

/**
 * Client events being handled, counted from receipt to their ack, so a shutdown can let them finish
 * before it closes the sockets: a write committed after its socket closed would be stored with no
 * ack, and its retry (without a requestId) would meet its own write as a version-mismatch.
 */
export class InFlightEvents {
  private count = 0;
  private closing = false;
  private idle: (() => void)[] = [];

  /** Counts this socket's events that carry an ack; once closing, new events are dropped unanswered (the disconnect that follows is their answer: nothing of theirs is stored). */
  track(socket: AnySocket): void {
    socket.use((packet, next) => {
      if (this.closing) return;
      const last = packet.length - 1;
      const ack = packet[last];
      if (typeof ack === 'function') {
        this.count += 1;
        let answered = false;
        packet[last] = (...args: unknown[]) => {
          if (!answered) {
            answered = true;
            this.settleOne();
          }
          return (ack as (...a: unknown[]) => unknown)(...args);
        };
      }
      next();
    });
  }

  /** Stops taking events and resolves once every one taken is answered, or after `maxWaitMs`. */
  async close(maxWaitMs: number): Promise<void> {
    this.closing = true;
    if (this.count === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idle.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs).unref())),
    ]);
    clearTimeout(timer);
  }

  private settleOne(): void {
    this.count -= 1;
    if (this.count > 0) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
