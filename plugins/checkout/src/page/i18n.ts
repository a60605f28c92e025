/**
 * The checkout page's texts in every language it speaks. English is the reference; a language is
 * complete or absent (the type makes a missing key a compile error). `{name}` placeholders are
 * filled by `t()`, and the filled text is escaped like any other interpolation.
 */
const en = {
  title: 'Pay {amount} {symbol}',
  pay_to: 'Payment to {name}',
  amount: 'Amount',
  remainder: 'Still to send',
  usd_value: 'about {usd}',
  copy: 'Copy',
  copied: 'Copied',
  coin_network: 'Coin and network',
  network_warning: 'Send only {symbol} on {network}. Coins sent on another network are lost.',
  token_contract: 'Token contract',
  address: 'Address',
  memo: 'Comment (required)',
  memo_help: 'Put this exact comment in your wallet, or the payment cannot be matched to this invoice.',
  qr_label: 'QR code of the payment request: scan it with your wallet',
  request_caption: 'The code and the wallet link ask for {amount} {symbol}.',
  open_wallet: 'Open in wallet',
  expires_in: 'Time left',
  expires_at: 'Pay before {time}',
  status: 'Status',
  refresh: 'Refresh status',
  no_js: 'This page updates itself every 15 seconds.',
  status_pending: 'Waiting for your payment',
  status_pending_help: 'Send the exact amount to the address below. This page updates when the payment is seen.',
  status_detected: 'Payment seen, waiting for confirmations',
  status_detected_help: '{confirmations} of {threshold} confirmations.',
  status_paid: 'Paid',
  status_paid_help: 'Thank you, the payment is complete.',
  status_overpaid: 'Paid (more than the amount)',
  status_overpaid_help: 'The payment is complete. You sent more than the amount; contact {name} about the difference.',
  status_partial: 'Paid too little',
  status_partial_help: 'Send the remaining {remainder} {symbol} to the same address.',
  status_expired: 'Expired',
  status_expired_help: 'This invoice expired before a payment arrived. Do not send money to this address.',
  status_expired_paid_late: 'Paid after expiry',
  status_expired_paid_late_help: 'Your payment arrived after the invoice expired. Contact {name}.',
  status_reverted: 'Payment reverted',
  status_reverted_help: 'The payment was removed from the chain by a reorganisation. Contact {name}.',
  status_cancelled: 'Cancelled',
  status_cancelled_help: 'This invoice was cancelled. Do not send money to this address.',
  status_ambiguous: 'Payment under review',
  status_ambiguous_help: 'A payment arrived that cannot be matched automatically. {name} will review it.',
  return: 'Return to {name}',
  returning: 'Returning to {name}…',
  cancel: 'Cancel and return to {name}',
  sandbox_banner: 'Sandbox: this is a test invoice. Do not send real money.',
  language: 'Language',
  not_found_title: 'Page not found',
  not_found: 'There is no payment page at this address.',
  minutes_seconds: '{minutes} min {seconds} s',
};

export type MessageKey = keyof typeof en;
type Messages = Record<MessageKey, string>;

const de: Messages = {
  title: '{amount} {symbol} bezahlen',
  pay_to: 'Zahlung an {name}',
  amount: 'Betrag',
  remainder: 'Noch zu senden',
  usd_value: 'etwa {usd}',
  copy: 'Kopieren',
  copied: 'Kopiert',
  coin_network: 'Währung und Netzwerk',
  network_warning: 'Senden Sie nur {symbol} über {network}. Über ein anderes Netzwerk gesendete Beträge gehen verloren.',
  token_contract: 'Token-Vertrag',
  address: 'Adresse',
  memo: 'Kommentar (erforderlich)',
  memo_help: 'Geben Sie genau diesen Kommentar in Ihrer Wallet an, sonst kann die Zahlung dieser Rechnung nicht zugeordnet werden.',
  qr_label: 'QR-Code der Zahlungsanforderung: mit Ihrer Wallet scannen',
  request_caption: 'Code und Wallet-Link fordern {amount} {symbol} an.',
  open_wallet: 'In der Wallet öffnen',
  expires_in: 'Verbleibende Zeit',
  expires_at: 'Zahlen Sie bis {time}',
  status: 'Status',
  refresh: 'Status aktualisieren',
  no_js: 'Diese Seite aktualisiert sich alle 15 Sekunden.',
  status_pending: 'Warten auf Ihre Zahlung',
  status_pending_help: 'Senden Sie genau den Betrag an die unten stehende Adresse. Diese Seite aktualisiert sich, sobald die Zahlung gesehen wird.',
  status_detected: 'Zahlung gesehen, warten auf Bestätigungen',
  status_detected_help: '{confirmations} von {threshold} Bestätigungen.',
  status_paid: 'Bezahlt',
  status_paid_help: 'Vielen Dank, die Zahlung ist abgeschlossen.',
  status_overpaid: 'Bezahlt (mehr als der Betrag)',
  status_overpaid_help: 'Die Zahlung ist abgeschlossen. Sie haben mehr als den Betrag gesendet; wenden Sie sich wegen der Differenz an {name}.',
  status_partial: 'Zu wenig bezahlt',
  status_partial_help: 'Senden Sie die restlichen {remainder} {symbol} an dieselbe Adresse.',
  status_expired: 'Abgelaufen',
  status_expired_help: 'Diese Rechnung ist abgelaufen, bevor eine Zahlung einging. Senden Sie kein Geld an diese Adresse.',
  status_expired_paid_late: 'Nach Ablauf bezahlt',
  status_expired_paid_late_help: 'Ihre Zahlung ging nach Ablauf der Rechnung ein. Wenden Sie sich an {name}.',
  status_reverted: 'Zahlung rückgängig gemacht',
  status_reverted_help: 'Die Zahlung wurde durch eine Reorganisation aus der Blockchain entfernt. Wenden Sie sich an {name}.',
  status_cancelled: 'Storniert',
  status_cancelled_help: 'Diese Rechnung wurde storniert. Senden Sie kein Geld an diese Adresse.',
  status_ambiguous: 'Zahlung wird geprüft',
  status_ambiguous_help: 'Eine Zahlung ging ein, die nicht automatisch zugeordnet werden kann. {name} prüft sie.',
  return: 'Zurück zu {name}',
  returning: 'Weiterleitung zu {name}…',
  cancel: 'Abbrechen und zurück zu {name}',
  sandbox_banner: 'Sandbox: Dies ist eine Testrechnung. Senden Sie kein echtes Geld.',
  language: 'Sprache',
  not_found_title: 'Seite nicht gefunden',
  not_found: 'Unter dieser Adresse gibt es keine Zahlungsseite.',
  minutes_seconds: '{minutes} Min. {seconds} s',
};

const MESSAGES = { en, de } as const;
export type Locale = keyof typeof MESSAGES;
export const LOCALES: readonly Locale[] = ['en', 'de'];
/** The name of each language in itself, for the switch. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = { en: 'English', de: 'Deutsch' };

/** The text of `key` in `locale` with its placeholders filled. */
export function t(locale: Locale, key: MessageKey, values: Readonly<Record<string, string | number>> = {}): string {
  return MESSAGES[locale][key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The page's language: an explicit `?lang=` wins, else the first language of `Accept-Language`
 * (by quality, then order) that the page speaks, else English.
 */
export function chooseLocale(explicit: unknown, acceptLanguage: string | undefined): Locale {
  if (isLocale(explicit)) return explicit;
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [range, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return { base: (range ?? '').trim().toLowerCase().split('-')[0] ?? '', quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.base && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranges.map((r) => r.base).find(isLocale) ?? 'en';
}

/**
 * A decimal amount string formatted for people in `locale` (grouping and decimal separator),
 * digit for digit: never through a JS number, so no precision is lost. The copyable amount stays
 * the machine string.
 */
export function formatDecimal(locale: Locale, value: string): string {
  const [whole = '0', fraction] = value.split('.');
  const group = locale === 'de' ? '.' : ',';
  const point = locale === 'de' ? ',' : '.';
  // Grouped by counting from the right (a lookahead regex for it backtracks polynomially).
  let grouped = '';
  for (let i = 0; i < whole.length; i++) grouped += (i > 0 && (whole.length - i) % 3 === 0 ? group : '') + whole[i];
  return fraction ? `${grouped}${point}${fraction}` : grouped;
}

/** A USD amount for people in `locale` (2 decimals). */
export function formatUsd(locale: Locale, usd: number): string {
  return new Intl.NumberFormat(locale === 'de' ? 'de-DE' : 'en-US', { style: 'currency', currency: 'USD' }).format(usd);
}

/** A point in time for people in `locale`, in UTC (the server cannot know the payer's zone; the script shows local time). */
export function formatTime(locale: Locale, date: Date): string {
  return new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(date);
}
