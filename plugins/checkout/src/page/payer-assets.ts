import { fileURLToPath } from 'node:url';
import { staticAssets } from '@gw/kernel';

/**
 * The payer pages' stylesheet and script, served by the gateway itself (no CDN) with content
 * hashes: every payer page links them through `payerPage`, whichever plugin renders it.
 */
export const CHECKOUT_ASSETS = staticAssets('/checkout/assets', [
  { name: 'checkout.css', type: 'text/css; charset=utf-8', file: fileURLToPath(new URL('../../assets/checkout.css', import.meta.url)) },
  { name: 'checkout.js', type: 'text/javascript; charset=utf-8', file: fileURLToPath(new URL('../../assets/checkout.js', import.meta.url)) },
]);
