import type { Page } from 'playwright-core';

/** Debian's Chromium (GW_CHROMIUM overrides). */
export const CHROMIUM = process.env['GW_CHROMIUM'] ?? '/usr/bin/chromium';

/** Collects the page's Content Security Policy violations (there must be none). */
export function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}
