import { html, type SafeHtml } from '@gw/kernel';

/**
 * One bar of a chart: its label (x axis), its value as shown (a decimal string for money, exact) and
 * that value as a number, used only for the bar's height.
 */
export interface Bar {
  readonly label: string;
  readonly text: string;
  readonly value: number;
}

const WIDTH = 360;
const HEIGHT = 120;
const AXIS = 16;

/**
 * A small bar chart as inline SVG, rendered on the server (no script, no external asset): an image
 * with a title and description for screen readers; the caller shows the numbers as a table too.
 * Values are counts or rounded amounts for drawing only, never money in computation.
 */
export function barChart(id: string, title: string, description: string, bars: readonly Bar[]): SafeHtml {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const slot = WIDTH / Math.max(1, bars.length);
  const barWidth = Math.max(2, slot * 0.7);
  const plot = HEIGHT - AXIS;
  return html`<svg class="chart" viewBox="0 0 ${String(WIDTH)} ${String(HEIGHT)}" role="img" aria-labelledby="${`${id}-title ${id}-desc`}" preserveAspectRatio="none">
<title id="${`${id}-title`}">${title}</title>
<desc id="${`${id}-desc`}">${description}</desc>
<line x1="0" y1="${String(plot)}" x2="${String(WIDTH)}" y2="${String(plot)}" class="axis"></line>
${bars.map((b, i) => {
  const h = b.value === 0 ? 0 : Math.max(1, (b.value / max) * (plot - 4));
  return html`<rect class="bar" x="${(i * slot + (slot - barWidth) / 2).toFixed(1)}" y="${(plot - h).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}"><title>${b.label}: ${b.text}</title></rect>`;
})}
<text x="0" y="${String(HEIGHT - 3)}" class="tick">${bars[0]?.label ?? ''}</text>
<text x="${String(WIDTH)}" y="${String(HEIGHT - 3)}" class="tick" text-anchor="end">${bars[bars.length - 1]?.label ?? ''}</text>
</svg>`;
}
