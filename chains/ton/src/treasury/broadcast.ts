import { ProviderError, type ProviderHttp } from '@gw/chain-api';
import { parseSentMessage } from './toncenter-accounts.js';

/** What the provider said: accepted, or refused with its reason. */
export type TonBroadcastOutcome = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

/**
 * toncenter's `POST /api/v3/message` with `{ boc }` (base64). toncenter runs the external against
 * the account before relaying it, so a message the wallet would not accept (wrong seqno, expired,
 * bad signature; or one already processed, whose seqno is now past) is answered with an error
 * status: a refusal, not a provider failure. The caller then asks whether the message is already
 * on chain (a resend of a processed external is not an error).
 */
export async function sendExternal(http: ProviderHttp, bocBase64: string): Promise<TonBroadcastOutcome> {
  try {
    parseSentMessage(await http.json('POST', '/api/v3/message', { body: { boc: bocBase64 } }));
    return { accepted: true };
  } catch (error) {
    if (error instanceof ProviderError && error.failure === 'http_error' && isRefusal(error.message)) {
      return { accepted: false, reason: error.message.replace(/^.*? HTTP \d+ /, '') };
    }
    throw error;
  }
}

/** 4xx, or a 500 that names the external's rejection (toncenter words it "cannot apply external message", exit codes). */
function isRefusal(message: string): boolean {
  if (/ HTTP 4\d\d /.test(message)) return true;
  const at = message.indexOf('HTTP 500 ');
  return at >= 0 && /external|apply|exit ?code/i.test(message.slice(at));
}
