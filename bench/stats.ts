/** Small numeric helpers for the benchmark's report. */

/** The p-th percentile (0..100) of values, nearest-rank; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

/** `count` round trips of GET /healthz (ms each, one after another): the baseline a latency is a ratio of. */
export async function healthzRoundTrips(hubUrl: string, count: number): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await (await fetch(`${hubUrl}/healthz`)).arrayBuffer();
    took.push(performance.now() - start);
  }
  return took;
}
