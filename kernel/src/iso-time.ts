/** A stored moment (a Date, or the timestamp text or epoch milliseconds a driver answered) as ISO 8601 text, for a view's `*_iso` field. */
export function isoTime(value: Date | string | number): string {
  return new Date(value).toISOString();
}

/** {@link isoTime}, or null for a moment that is not there (a nullable column: not yet revoked, never used). */
export function isoTimeOrNull(value: Date | string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : isoTime(value);
}
