import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.1 A/AA findings on a page that runs scripts, one line each (`rule: targets`). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () =>
    (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }),
  );
  return (result.violations as { id: string; nodes: { target: string[] }[] }[]).map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * axe-core's findings on what a page without JavaScript shows. axe is a script and the page runs
 * none, so the same markup is served again, at the same address (its stylesheet loads from the
 * gateway), to a page of a context of the same browser with JavaScript on.
 */
export async function axeViolationsWithoutScripts(page: Page): Promise<string[]> {
  const markup = await page.content();
  const context = await page.context().browser()!.newContext();
  try {
    const checked = await context.newPage();
    await checked.route(page.url(), (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: markup }));
    await checked.goto(page.url());
    return await axeViolations(checked);
  } finally {
    await context.close();
  }
}
