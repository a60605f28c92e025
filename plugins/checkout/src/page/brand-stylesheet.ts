/** `#rrggbb`, the form the branding service stores (lower case). */
const COLOUR = /^#[0-9a-f]{6}$/;

/**
 * Where a payer page loads the stylesheet of a project's accent colour (the CSP allows no inline
 * style): the colour is the file name, so the answer never changes and is cached for good.
 */
export function brandStylesheetPath(colour: string): string | undefined {
  const lower = colour.toLowerCase();
  return COLOUR.test(lower) ? `/checkout/brand/${lower.slice(1)}.css` : undefined;
}

/** The accent colour stylesheet: the colour and, for text on it, whichever of black and white contrasts more. */
export function brandStylesheet(colour: string): string {
  const r = parseInt(colour.slice(1, 3), 16) / 255;
  const g = parseInt(colour.slice(3, 5), 16) / 255;
  const b = parseInt(colour.slice(5, 7), 16) / 255;
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  // WCAG relative luminance: the contrast of black is (L + 0.05) / 0.05, of white 1.05 / (L + 0.05).
  const onAccent = (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
  return `:root{--accent:${colour};--on-accent:${onAccent}}\n`;
}
