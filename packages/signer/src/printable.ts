/**
 * Text from a plan file (or any other input) made safe to print on a terminal: every control
 * character (C0 including line endings and tabs, DEL, C1, and with them ESC, which starts the
 * terminal's escape sequences) and every Unicode format character (bidirectional overrides,
 * zero-width spaces: they make one address look like another) is written as a visible escape,
 * `\x1b`, `\u202e`. A plan cannot move the cursor, hide text, or add lines to what the signer shows.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Several lines of text, each made {@link printable}, joined with line endings: the only line endings printed are the signer's own. */
export function printableLines(lines: readonly string[]): string {
  return lines.map(printable).join('\n');
}
