import QRCode from 'qrcode';
import { trustedHtml, type SafeHtml } from '@gw/kernel';

/** Modules of white border around the code (the QR specification's quiet zone). */
const QUIET_ZONE = 4;

/**
 * The payment URI as an SVG QR code, rendered on the server (no script, no external service).
 * Error correction M, a 4-module quiet zone; dark modules on white in both themes, since wallets
 * scan dark-on-light most reliably. Synchronous (`QRCode.create` gives the module matrix; the SVG
 * is drawn here), so a status update can carry the code of what is still due. The SVG is made of
 * numbers alone (no text of the URI appears in it), so it is safe to emit as markup.
 */
export function qrSvg(text: string, label: string): SafeHtml {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size + 2 * QUIET_ZONE;
  let path = '';
  for (let row = 0; row < modules.size; row++) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col++;
      path += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${col - start}v1h-${col - start}z`;
    }
  }
  const escapedLabel = label.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return trustedHtml(
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapedLabel}" class="qr" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h${size}v${size}H0z"/><path fill="#000000" d="${path}"/></svg>`,
  );
}
