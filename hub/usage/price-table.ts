/**
 * THE price table: USD per million tokens, per model, for the cost the hub computes (docs/usage.md).
 * A user overrides or adds models with `<data dir>/prices.json` (hub/usage/prices.ts); this file is
 * the only place prices are written in the code. A model missing here has no cost, never a guess.
 *
 * Keys are the model ids agents report. A reported id matches a key exactly, or as the key followed
 * by a dated snapshot suffix (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`) or by Claude
 * Code's 1M-context marker (`claude-opus-4-8[1m]` is `claude-opus-4-8`); no other prefix matching,
 * so `claude-opus-4-9` is not priced as `claude-opus-4`.
 *
 * Kinds: `input` (uncached input), `output`, `cacheRead` (cache hits), `cacheWrite` (tokens written
 * to the prompt cache). Where a vendor bills no separate cache write, cacheWrite is its input price.
 */

export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface PriceSource {
  /** Where the prices were read. */
  url: string;
  /** When they were read there (YYYY-MM-DD). */
  checked: string;
  note?: string;
}

export const PRICE_SOURCES = {
  anthropic: {
    url: 'https://platform.claude.com/docs/en/about-claude/pricing',
    checked: '2026-11-29',
    note:
      'Table "Model pricing"; the models released since (Opus 5.5, Sonnet 5.5, Sonnet 5, Fable 5 and 5.1) from their own pages, ' +
      'https://platform.claude.com/docs/en/models/<model>/overview, section "Pricing". Fable\'s pages give input and output, and ' +
      'Fable 5.1\'s says its cache reads cost a quarter of Fable 5\'s: its cache prices are the standard 1.25x (5-minute write) ' +
      'and 0.1x (read) of input, and a quarter of that read for 5.1. Haiku 5.5 is priced in tiers ("from $0.10 / $0.50") and is ' +
      'not in the table. cacheWrite is the 5-minute cache write price (Claude Code\'s default); 1-hour writes cost more and are ' +
      'counted at this price.',
  },
  openai: {
    url: 'https://developers.openai.com/api/docs/models/gpt-5-codex',
    checked: '2026-11-25',
    note: 'Section "Pricing", text tokens. OpenAI bills no cache write: cacheWrite is the input price.',
  },
  google: {
    url: 'https://ai.google.dev/gemini-api/docs/pricing',
    checked: '2026-11-25',
    note:
      'Standard (paid) tier, prompts up to 200k tokens (longer prompts cost more and are counted at this price). ' +
      'Read from deploybase.ai/articles/gemini-api-pricing, which quotes that page; the page itself could not be read from here. ' +
      'Cache read: 10% of input, as quoted there. Gemini bills no cache write: cacheWrite is the input price.',
  },
} as const satisfies Record<string, PriceSource>;

export type PriceSourceName = keyof typeof PRICE_SOURCES;

const anthropic = (input: number, cacheWrite: number, cacheRead: number, output: number) =>
  ({ source: 'anthropic', input, output, cacheRead, cacheWrite }) as const;
const openai = (input: number, cacheRead: number, output: number) => ({ source: 'openai', input, output, cacheRead, cacheWrite: input }) as const;
const google = (input: number, output: number) => ({ source: 'google', input, output, cacheRead: input / 10, cacheWrite: input }) as const;

export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice & { source: PriceSourceName }>> = {
  // Anthropic: base input, 5m cache write, cache hit, output
  'claude-fable-5-1': anthropic(10, 12.5, 0.25, 50),
  'claude-fable-5': anthropic(10, 12.5, 1, 50),
  'claude-opus-5-5': anthropic(4, 5, 0.2, 20),
  'claude-opus-5': anthropic(5, 6.25, 0.5, 25),
  'claude-opus-4-8': anthropic(5, 6.25, 0.5, 25),
  'claude-opus-4-7': anthropic(5, 6.25, 0.5, 25),
  'claude-opus-4-6': anthropic(5, 6.25, 0.5, 25),
  'claude-opus-4-5': anthropic(5, 6.25, 0.5, 25),
  'claude-opus-4-1': anthropic(15, 18.75, 1.5, 75),
  'claude-opus-4': anthropic(15, 18.75, 1.5, 75),
  'claude-sonnet-5-5': anthropic(2, 2.5, 0.2, 10),
  'claude-sonnet-5': anthropic(2, 2.5, 0.2, 10),
  'claude-sonnet-4-6': anthropic(3, 3.75, 0.3, 15),
  'claude-sonnet-4-5': anthropic(3, 3.75, 0.3, 15),
  'claude-sonnet-4': anthropic(3, 3.75, 0.3, 15),
  'claude-3-7-sonnet': anthropic(3, 3.75, 0.3, 15),
  'claude-haiku-4-5': anthropic(1, 1.25, 0.1, 5),
  'claude-3-5-haiku': anthropic(0.8, 1, 0.08, 4),
  'claude-3-haiku': anthropic(0.25, 0.3, 0.03, 1.25),
  // OpenAI (Codex): input, cached input, output
  'gpt-5-codex': openai(1.25, 0.125, 10),
  // Google (Gemini CLI): input, output
  'gemini-2.5-pro': google(1.25, 10),
  'gemini-2.5-flash': google(0.3, 2.5),
};
