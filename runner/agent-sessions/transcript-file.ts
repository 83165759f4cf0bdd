/**
 * A transcript read as JSON lines, bounded: a file past AGENT_SESSION_LIMITS.maxTranscriptBytes is
 * not read at all, a line that is not JSON is left out and counted. Transcripts are untrusted input.
 */
import { readFile, stat } from 'node:fs/promises';
import { AGENT_SESSION_LIMITS } from '../../shared/protocol/agent-sessions.js';

export class TranscriptRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptRefused';
  }
}

export interface TranscriptLines {
  records: Record<string, unknown>[];
  /** Lines that were not a JSON object. */
  broken: number;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function readTranscript(file: string): Promise<TranscriptLines> {
  const { size } = await stat(file);
  if (size > AGENT_SESSION_LIMITS.maxTranscriptBytes) {
    throw new TranscriptRefused(`the transcript is ${megabytes(size)}, over the ${megabytes(AGENT_SESSION_LIMITS.maxTranscriptBytes)} the runner reads: not read`);
  }
  const records: Record<string, unknown>[] = [];
  let broken = 0;
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) records.push(value as Record<string, unknown>);
      else broken++;
    } catch {
      broken++;
    }
  }
  return { records, broken };
}

/** A record's field as an object, a string, a number: never trusted to be there or to be that. */
export const objectAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return found !== null && typeof found === 'object' && !Array.isArray(found) ? (found as Record<string, unknown>) : undefined;
};
export const stringAt = (value: unknown, key: string): string | undefined => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === 'string' ? found : undefined;
};
export const numberAt = (value: unknown, key: string): number | undefined => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === 'number' && Number.isFinite(found) && found >= 0 ? found : undefined;
};
export const arrayAt = (value: unknown, key: string): unknown[] => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return Array.isArray(found) ? found : [];
};
/** An ISO timestamp as epoch ms, or undefined. */
export const timeAt = (value: unknown, key: string): number | undefined => {
  const text = stringAt(value, key);
  const ms = text === undefined ? NaN : Date.parse(text);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
};
