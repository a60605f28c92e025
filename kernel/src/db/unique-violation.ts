/**
 * Whether `error` is PostgreSQL's unique violation (23505), optionally on a constraint whose name
 * contains `constraint`. For the race a read-then-insert check cannot close: two transactions both
 * find no row and both insert; the unique index refuses the second, which should then get the
 * same "already exists" error the check gives, not a 500.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  // The driver's error carries the code; Objection wraps it (UniqueViolationError) as `nativeError`.
  const seen = error as { code?: unknown; constraint?: unknown; nativeError?: { code?: unknown; constraint?: unknown } } | null;
  const native = seen?.nativeError ?? seen;
  if (!native || native.code !== '23505') return false;
  return constraint === undefined || String(native.constraint ?? seen?.constraint ?? '').includes(constraint);
}
