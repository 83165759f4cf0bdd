import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../../shared/protocol/validation.js';
import type { ModelUsage, UsageReport } from '../../shared/protocol/usage.js';
import { BUILT_IN_PRICES, type ModelPrice } from './price-table.js';

/** The user's prices, in the data directory: they replace or add to the built-in table. */
export const PRICES_FILE = 'prices.json';

/** `<key>-YYYYMMDD`: a dated snapshot of the model `<key>` (Anthropic's ids). */
const DATED_SNAPSHOT = /^(.+)-\d{8}$/;
/**
 * `<model>[1m]`: Claude Code's id for a model run with its 1M-token context window (what its hooks,
 * transcripts and stream-json report), billed as the model itself.
 */
const CONTEXT_VARIANT = /^(.+)\[1m\]$/;

const Price = z.number({ error: 'must be a price in USD per million tokens' }).finite().nonnegative('must not be negative');
const PricesFileSchema = z
  .object({
    /** A model's prices, or null to remove a built-in price (its cost is then unknown). */
    models: z.record(
      z.string().min(1).max(128),
      z.object({ input: Price, output: Price, cacheRead: Price, cacheWrite: Price }).strict().nullable(),
    ),
  })
  .strict();

/** Model → price; `priceOf` answers undefined for a model without one (its cost stays unknown). */
export class PriceTable {
  private readonly prices: ReadonlyMap<string, ModelPrice>;

  constructor(prices: Readonly<Record<string, ModelPrice | null>>) {
    const entries = Object.entries(prices).filter((entry): entry is [string, ModelPrice] => entry[1] !== null);
    this.prices = new Map(entries.map(([model, { input, output, cacheRead, cacheWrite }]) => [model, { input, output, cacheRead, cacheWrite }]));
  }

  /** The model's price: an exact key first (a prices.json entry may name a variant), then the model without its variant, then without its snapshot date. */
  priceOf(model: string): ModelPrice | undefined {
    const exact = this.prices.get(model);
    if (exact) return exact;
    const base = CONTEXT_VARIANT.exec(model)?.[1] ?? model;
    return this.prices.get(base) ?? this.prices.get(DATED_SNAPSHOT.exec(base)?.[1] ?? '');
  }

  /** The usage of one model with its cost, or `costUsd: null` when the model has no price. */
  price(report: UsageReport): ModelUsage {
    const tokens = {
      inputTokens: report.inputTokens,
      outputTokens: report.outputTokens,
      cacheReadTokens: report.cacheReadTokens ?? 0,
      cacheWriteTokens: report.cacheWriteTokens ?? 0,
    };
    const price = this.priceOf(report.model);
    const costUsd =
      price === undefined
        ? null
        : (tokens.inputTokens * price.input + tokens.outputTokens * price.output + tokens.cacheReadTokens * price.cacheRead + tokens.cacheWriteTokens * price.cacheWrite) /
          1_000_000;
    return { model: report.model, ...tokens, costUsd };
  }
}

export const builtInPrices = (): PriceTable => new PriceTable(BUILT_IN_PRICES);

/**
 * The built-in table with `<dataDir>/prices.json` over it (none: the built-in table). A file that
 * is not JSON or not of the documented shape stops the start, with what is wrong and where.
 */
export function loadPrices(dataDir: string): PriceTable {
  const file = join(dataDir, PRICES_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return builtInPrices();
    throw new Error(`cannot read the price file ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`the price file ${file} is not valid JSON (${(error as Error).message}); fix it or remove it (docs/usage.md)`);
  }
  const parsed = PricesFileSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`the price file ${file} is refused: ${describeZodError(parsed.error)} (format: docs/usage.md)`);
  return new PriceTable({ ...BUILT_IN_PRICES, ...parsed.data.models });
}
