import type { Cell } from '@ton/core';
import { v5r1SignedBody } from './v5r1-request.js';

const SIGNATURE_BYTES = 64;

/** The signature of a V5R1 external body that is `payload` followed by one; undefined when the body is another request. */
export function signatureOver(body: Cell, payload: Cell): Buffer | undefined {
  if (body.bits.length !== payload.bits.length + SIGNATURE_BYTES * 8 || body.refs.length !== payload.refs.length) return undefined;
  const slice = body.beginParse();
  slice.skip(payload.bits.length);
  const signature = slice.loadBuffer(SIGNATURE_BYTES);
  return v5r1SignedBody(payload, signature).hash().equals(body.hash()) ? signature : undefined;
}
