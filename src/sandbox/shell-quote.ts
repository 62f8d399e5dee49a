/** Single-quotes a word for /bin/sh. */
export function shq(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
