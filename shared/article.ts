/** "a" or "an" before a word, for messages built from a value (a role): "an admin token", "a runner token". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
