import { refuse } from './signer-error.js';

const UNITS = /^(?:0|[1-9]\d{0,77})$/;
/** An id is printed and written back: plain characters only (no control characters, no shell or terminal syntax). */
const ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** The field checks the plan readers (read-plan.ts, account-plan.ts) share; each refuses with `plan_unreadable`. */
export function fail(message: string): never {
  return refuse('plan_unreadable', message);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0) fail(`${where} must be a non-empty string.`);
  return value;
}

export function units(value: unknown, where: string): bigint {
  if (typeof value !== 'string' || !UNITS.test(value)) fail(`${where} must be base units as a decimal string ("12345").`);
  return BigInt(value);
}

/** A plan's or a step's id (`where` names it). */
export function checkId(value: unknown, where: string): asserts value is string {
  if (typeof value !== 'string' || !ID.test(value)) fail(`${where} must be 1 to 100 characters of A-Z, a-z, 0-9, ".", "_", ":" and "-".`);
}
