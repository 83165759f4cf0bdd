/**
 * Reads a JSONL transcript's complete lines from a byte offset on, in chunks, never the whole file:
 * the part every transcript reader of the hook bridge shares (docs/usage.md). The readers decide
 * what a line means; this module only finds lines, and bounds what one line may cost.
 *
 * Bundled into the bridge: Node built-ins only.
 */
export interface LineReadOptions {
  /** Bytes read at a time. */
  chunkBytes?: number;
  /** A longer line is skipped unread (what it held is lost): bounds the memory one line may take. */
  maxLineBytes?: number;
}

export interface LinesRead {
  /** Where the next read starts: after the last complete line (a partly written last line is left for later). */
  newOffset: number;
}

const NEWLINE = 0x0a;
const LINE_DEFAULTS = { chunkBytes: 1 << 20, maxLineBytes: 64 << 20 };

/**
 * Calls `onLine` with each complete line from `offset` on. A missing file reads as empty (the agent
 * has not written it yet; the offset stays); a file shorter than `offset` was rewritten: no line
 * is read and reading resumes at its end. `skipFrom(size)` may refuse to read at all (it returns
 * true): the offset then moves to the end unread. Memory: one chunk and one line at a time.
 */
export async function readLinesSince(path: string, offset: number, onLine: (line: string) => void, options: LineReadOptions = {}, skipFrom?: (size: number) => boolean): Promise<LinesRead> {
  const { chunkBytes, maxLineBytes } = { ...LINE_DEFAULTS, ...options };
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset: must be a byte position (a whole number >= 0), got ${offset}`);
  // loaded here, not at the top: most hook calls read no transcript, and the module costs start-up time
  const { open } = await import('node:fs/promises');
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { newOffset: offset };
    throw error;
  }
  try {
    const { size } = await file.stat();
    if (size < offset || skipFrom?.(size)) return { newOffset: size };
    const chunk = Buffer.alloc(chunkBytes);
    /** The start of the line being read, and its bytes so far (unless it is being skipped). */
    let lineStart = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let skipping = false;
    let position = offset;
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, 0); at !== -1 && at < bytesRead; at = chunk.indexOf(NEWLINE, from)) {
        if (!skipping) {
          pending.push(chunk.subarray(from, at));
          onLine(Buffer.concat(pending).toString('utf8'));
        }
        pending = [];
        pendingBytes = 0;
        skipping = false;
        from = at + 1;
        lineStart = position + from;
      }
      const rest = bytesRead - from;
      if (!skipping && rest > 0) {
        pendingBytes += rest;
        if (pendingBytes > maxLineBytes) {
          skipping = true;
          pending = [];
        } else {
          pending.push(Buffer.from(chunk.subarray(from, bytesRead)));
        }
      }
      position += bytesRead;
    }
    return { newOffset: lineStart };
  } finally {
    await file.close();
  }
}
