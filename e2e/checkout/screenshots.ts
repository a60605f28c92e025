/**
 * Writes the screenshots of docs/checkout.md (not a test: run it by hand after a visible change):
 * `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx e2e/checkout/screenshots.ts`
 * A sandbox gateway, Debian's chromium at phone size; light and dark, English and German, the
 * waiting, partial and paid states.
 */
import { fileURLToPath } from 'node:url';
import { CLI_ACTOR } from '@gw/kernel';
import { chromium } from 'playwright-core';
import { sandboxClient, startCheckoutKernel } from './helpers.js';

const OUT = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const gw = await startCheckoutKernel({ 'plugins.checkout.returnDelaySeconds': 60 });
const browser = await chromium.launch({ executablePath: process.env['GW_CHROMIUM'] ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  const c = await sandboxClient(gw);
  await gw.kernel.cradle.checkoutBranding.set(c.projectId, { displayName: 'Acme Coffee', colour: '#0f766e' }, CLI_ACTOR);
  const create = async (external: string, body: Record<string, unknown>) => (await c.call('POST', '/invoices', { external_id: external, ...body })).body;
  const shots: { file: string; colorScheme: 'light' | 'dark'; locale: string; invoice: any; then?: (id: string) => Promise<void> }[] = [
    {
      file: 'checkout-waiting-light.png',
      colorScheme: 'light',
      locale: 'en-US',
      invoice: await create('shot-1', { coin: 'usdc_erc20', amount_usd: 24.5, return_url: 'https://shop.example/thanks' }),
    },
    {
      file: 'checkout-waiting-dark-de.png',
      colorScheme: 'dark',
      locale: 'de-DE',
      invoice: await create('shot-2', { coin: 'btc', amount_crypto: '0.00041', return_url: 'https://shop.example/thanks' }),
    },
    {
      file: 'checkout-partial.png',
      colorScheme: 'light',
      locale: 'en-US',
      invoice: await create('shot-3', { coin: 'ton', amount_crypto: '12.5' }),
      then: async (id) => {
        await c.call('POST', `/invoices/${id}/simulate-detect`);
        const inv = (await c.call('GET', `/invoices/${id}`)).body;
        await c.call('POST', `/invoices/${id}/simulate-event`, {
          event_type: 'invoice.partial',
          amount_units: '5000000000',
          confirmations: inv.confirmation_threshold,
          block_height: 1,
          expected_current_status: 'detected',
        });
      },
    },
    {
      file: 'checkout-paid-dark.png',
      colorScheme: 'dark',
      locale: 'en-US',
      invoice: await create('shot-4', { coin: 'eth', amount_crypto: '0.015', return_url: 'https://shop.example/thanks' }),
      then: async (id) => {
        await c.call('POST', `/invoices/${id}/simulate-detect`);
        await c.call('POST', `/invoices/${id}/simulate-paid`);
      },
    },
  ];
  for (const shot of shots) {
    await shot.then?.(shot.invoice.id);
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
      colorScheme: shot.colorScheme,
      locale: shot.locale,
      extraHTTPHeaders: { 'Accept-Language': shot.locale },
    });
    const page = await context.newPage();
    await page.goto(shot.invoice.checkout_url);
    await page.screenshot({ path: `${OUT}${shot.file}`, fullPage: true });
    await context.close();
    console.log(`wrote docs/images/${shot.file}`);
  }
} finally {
  await browser.close();
  await gw.close();
}
