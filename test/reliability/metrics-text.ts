/** Reads one sample from Prometheus text: `name{a="b",...} value`; labels must match exactly. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = (match[2] ?? '').split(',').filter(Boolean).sort().join(',');
    if (got === wanted) return Number(match[3]);
  }
  return undefined;
}

export async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}
