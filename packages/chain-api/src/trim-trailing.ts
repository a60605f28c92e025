/**
 * `text` without the run of `char` at its end ("1.500" and "0" gives "1.5"; "https://x//" and "/"
 * gives "https://x"). A loop rather than a pattern such as /0+$/ or /\/+$/, which the engine
 * retries from every character of a long run: quadratic in the run's length.
 */
export function trimTrailing(text: string, char: string): string {
  if (char.length !== 1) throw new Error('trimTrailing takes one character');
  const code = char.charCodeAt(0);
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === code) end--;
  return text.slice(0, end);
}
