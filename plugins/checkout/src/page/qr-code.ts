import QRCode from 'qrcode';
import { trustedHtml, type SafeHtml } from '@gw/kernel';

/**
 * The payment URI as an SVG QR code, rendered on the server (no script, no external service).
 * Error correction M, a 4-module quiet zone; dark modules on white in both themes, since wallets
 * scan dark-on-light most reliably. The SVG is built by `qrcode` from the URI's bits alone (no
 * text of the URI appears in it), so it is safe to emit as markup.
 */
export async function qrSvg(text: string, label: string): Promise<SafeHtml> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
  const escapedLabel = label.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return trustedHtml(svg.replace('<svg ', `<svg role="img" aria-label="${escapedLabel}" class="qr" `));
}
