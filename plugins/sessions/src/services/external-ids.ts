/**
 * The external ids of a session's invoices (issue 38): `cs_<session>_<n>` for the n-th pick,
 * `cs_<session>_late_<n>` for the n-th late payment credited to it. They tell the partner's invoice
 * list which session an invoice is of, and make concurrent picks of one session meet at the
 * invoices' unique (project, external_id).
 */
export const SESSION_EXTERNAL_ID_PREFIX = 'cs_';

export function pickExternalId(sessionId: string, seq: number): string {
  return `${SESSION_EXTERNAL_ID_PREFIX}${sessionId}_${seq}`;
}

/** What every late payment's external id of the session starts with. */
export function lateExternalIdPrefix(sessionId: string): string {
  return `${SESSION_EXTERNAL_ID_PREFIX}${sessionId}_late_`;
}

export function lateExternalId(sessionId: string, seq: number): string {
  return `${lateExternalIdPrefix(sessionId)}${seq}`;
}

const LATE = /^cs_([0-9A-HJKMNP-TV-Z]{26})_late_([1-9][0-9]{0,8})$/;

/** The session and number of a late payment's external id; undefined for any other. */
export function parseLateExternalId(externalId: string): { sessionId: string; seq: number } | undefined {
  const match = LATE.exec(externalId);
  return match ? { sessionId: match[1]!, seq: Number(match[2]) } : undefined;
}

const PICK_OR_LATE = /^cs_([0-9A-HJKMNP-TV-Z]{26})_(?:late_)?[1-9][0-9]{0,8}$/;

/** The session of a pick's or a late payment's external id; undefined for any other. */
export function sessionIdOfExternalId(externalId: string): string | undefined {
  return PICK_OR_LATE.exec(externalId)?.[1];
}
