// @ts-check
/**
 * Tokens and cost in words (docs/usage.md). A model without a price has `costUsd: null`: the page
 * says "no price known", never a guessed number. Pure functions, no DOM.
 */

/**
 * @typedef {import('../../shared/protocol/usage.js').UsageTotals} UsageTotals
 * @typedef {import('../../shared/protocol/usage.js').ModelUsage} ModelUsage
 */

/** "1,234,567" */
const NUMBER = new Intl.NumberFormat('en-US');

/** @param {number} tokens */
export function formatTokens(tokens) {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M tokens`;
  if (tokens >= 10_000) return `${Math.round(tokens / 1000)}k tokens`;
  return `${NUMBER.format(tokens)} tokens`;
}

/**
 * "$0.42", "$12.30"; under a cent, to one significant digit ("$0.004", "$0.0004"), so small
 * sessions still compare; below a millionth of a dollar "<$0.000001".
 * @param {number} usd
 */
export function formatUsd(usd) {
  if (usd > 0 && usd < 0.000001) return '<$0.000001';
  if (usd > 0 && usd < 0.0095) {
    const rounded = Number(usd.toPrecision(1));
    return `$${rounded.toFixed(Math.min(6, -Math.floor(Math.log10(rounded))))}`;
  }
  return `$${usd.toFixed(2)}`;
}

/** @param {{ inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheWriteTokens: number }} u */
export function tokenTotal(u) {
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
}

/**
 * A cost in words: "$1.20", "$1.20 + tokens with no price known", "no price known", or '' for no usage.
 * @param {UsageTotals} totals
 */
export function sayCost(totals) {
  if (tokenTotal(totals) === 0) return '';
  if (totals.costUsd === null) return 'no price known';
  return totals.unpricedTokens > 0 ? `${formatUsd(totals.costUsd)} + ${formatTokens(totals.unpricedTokens)} with no price known` : formatUsd(totals.costUsd);
}

/**
 * A session's usage per model, summed over its turns (each turn's `usage` is its totals per model).
 * @param {{ usage?: ModelUsage[] }[]} turns
 * @returns {ModelUsage[]} the models, most tokens first
 */
export function usageByModel(turns) {
  /** @type {Map<string, ModelUsage>} */
  const byModel = new Map();
  for (const turn of turns) {
    for (const u of turn.usage ?? []) {
      const sum = byModel.get(u.model) ?? { model: u.model, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
      sum.inputTokens += u.inputTokens;
      sum.outputTokens += u.outputTokens;
      sum.cacheReadTokens += u.cacheReadTokens;
      sum.cacheWriteTokens += u.cacheWriteTokens;
      // one unpriced turn makes the model's sum unpriced: a partial sum would read as the whole cost
      sum.costUsd = sum.costUsd === null || u.costUsd === null ? null : sum.costUsd + u.costUsd;
      byModel.set(u.model, sum);
    }
  }
  return [...byModel.values()].sort((a, b) => tokenTotal(b) - tokenTotal(a));
}
