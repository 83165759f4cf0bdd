/**
 * ws's server with `allowSynchronousEvents: false`: a WebSocket frame that arrives in the same TCP
 * read as others is handed on in its own turn of the event loop (setImmediate), not all of them at
 * once. Without it one socket that writes thousands of small events into one read (a flood, or a
 * runner replaying a long backlog) is decoded and answered in one go, and every other client's
 * events wait behind it (measured with `npm run bench:flood`: a bystander's ack p99 went from ~5 to
 * ~150 ms). Handed to engine.io as its `wsEngine`.
 */
import { WebSocketServer, type ServerOptions } from 'ws';

export class FairWebSocketServer extends WebSocketServer {
  constructor(options: ServerOptions) {
    super({ ...options, allowSynchronousEvents: false });
  }
}
