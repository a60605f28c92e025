import type { Locale } from '@gw/plugin-checkout/contract';

/**
 * The refund claim page's texts (and the checkout panel's and the e-mail's), in the languages the
 * checkout speaks. English is the reference; a language is complete or absent (the type makes a
 * missing key a compile error). `{name}` placeholders are filled by `claimText()`, and the filled
 * text is escaped like any other interpolation.
 */
const en = {
  title: 'Claim your refund',
  refund_from: 'Refund from {name}',
  language: 'Language',
  project: 'From',
  invoice: 'Invoice',
  amount: 'Amount',
  coin_network: 'Coin and network',
  network_warning: 'Enter an address of your own wallet for {symbol} on {network}. Money sent to an address of another network is lost.',
  address: 'Your {symbol} address on {network}',
  address_confirmation: 'The same address again',
  address_confirmation_help: 'Type or paste it a second time, so a typing mistake cannot send the refund elsewhere.',
  proof_title: 'Prove that the address is yours',
  proof_help:
    'This refund is large enough that you must sign the message below with the key of the address you enter. The message names your address: send the form once without a signature to see it with yours in place of <address>.',
  proof_message: 'Message to sign',
  signature: 'Signature',
  submit: 'Claim the refund',
  error_title: 'The claim was not accepted',
  state_open: 'Waiting for your address',
  state_open_help: 'Enter the address the refund is to be sent to. {name} reviews the claim before the refund is sent.',
  state_claimed: 'Claimed: waiting for approval',
  state_claimed_help: 'The refund will be sent to the address below once {name} approves it.',
  state_approved: 'Approved',
  state_approved_help: 'The refund has been approved and will be sent to the address below.',
  state_sent: 'Sent',
  state_sent_help: 'The refund has been sent and is waiting for confirmations.',
  state_completed: 'Completed',
  state_completed_help: 'The refund has arrived at the address below.',
  state_cancelled: 'Cancelled',
  state_cancelled_help: 'This refund was cancelled. Contact {name} if you have questions.',
  state_failed: 'Failed',
  state_failed_help: 'Sending this refund failed. Contact {name}.',
  paid_to: 'Paid to',
  txid: 'Transaction',
  not_found_title: 'Page not found',
  not_found: 'There is no refund claim at this address.',
  panel_title: 'Refund',
  panel_text: 'A refund of {amount} {symbol} is waiting for you.',
  panel_link: 'Claim it',
  email_subject: 'Your refund from {name}',
  email_text:
    '{name} is refunding {amount} {symbol} for invoice {invoice}.\n\nTo receive it, open this page and enter your {symbol} address on {network}:\n{url}\n\nIf you did not expect this message, ignore it.',
  hint_utxo: 'Use your wallet’s “Sign message” function with the address above; paste the base64 signature it shows.',
  hint_evm: 'Sign the message with your wallet (personal_sign, as “Sign message” does); paste the 0x… signature.',
  hint_tron: 'Sign the message with your wallet (signMessageV2); paste the hex signature.',
  hint_ada: 'Sign the message with your wallet (CIP-30 signData) for the address above; paste it as <COSE_Sign1 hex>.<COSE_Key hex>.',
  hint_ton: 'Sign the message with your wallet’s key; paste it as <public key hex>.<signature hex>.',
  hint_other: 'Sign the message with the key of the address above and paste the signature.',
  err_claim_address_invalid: 'This is not an address of {symbol} on {network}. Check that your wallet is on {network}.',
  err_claim_address_mismatch: 'The two addresses differ. Enter the same address twice.',
  err_claim_proof_required: 'This refund needs a signature of the message by the address.',
  err_claim_proof_invalid: 'The signature does not sign this message with the key of this address.',
  err_claim_already_made: 'This refund has already been claimed.',
  err_claim_closed: 'This refund can no longer be claimed.',
  err_claim_not_found: 'There is no refund claim at this address.',
  err_rate_limit_exceeded: 'Too many attempts. Wait a few minutes and try again.',
  err_form_expired: 'This form expired. Load the page again and resubmit.',
  err_validation_error: 'Some of what you entered could not be read. Check the fields and try again.',
  err_other: 'The claim could not be accepted.',
};

export type ClaimMessageKey = keyof typeof en;

const de: Record<ClaimMessageKey, string> = {
  title: 'Ihre Rückerstattung anfordern',
  refund_from: 'Rückerstattung von {name}',
  language: 'Sprache',
  project: 'Von',
  invoice: 'Rechnung',
  amount: 'Betrag',
  coin_network: 'Währung und Netzwerk',
  network_warning:
    'Geben Sie eine Adresse Ihrer eigenen Wallet für {symbol} über {network} an. An eine Adresse eines anderen Netzwerks gesendete Beträge gehen verloren.',
  address: 'Ihre {symbol}-Adresse über {network}',
  address_confirmation: 'Dieselbe Adresse noch einmal',
  address_confirmation_help: 'Geben Sie sie ein zweites Mal ein, damit ein Tippfehler die Rückerstattung nicht an eine andere Adresse schickt.',
  proof_title: 'Weisen Sie nach, dass die Adresse Ihnen gehört',
  proof_help:
    'Diese Rückerstattung ist so hoch, dass Sie die unten stehende Nachricht mit dem Schlüssel der angegebenen Adresse signieren müssen. Die Nachricht nennt Ihre Adresse: senden Sie das Formular einmal ohne Signatur, um sie mit Ihrer Adresse anstelle von <address> zu sehen.',
  proof_message: 'Zu signierende Nachricht',
  signature: 'Signatur',
  submit: 'Rückerstattung anfordern',
  error_title: 'Die Anforderung wurde nicht angenommen',
  state_open: 'Warten auf Ihre Adresse',
  state_open_help: 'Geben Sie die Adresse an, an die die Rückerstattung gesendet werden soll. {name} prüft die Anforderung, bevor sie gesendet wird.',
  state_claimed: 'Angefordert: Warten auf Freigabe',
  state_claimed_help: 'Die Rückerstattung wird an die unten stehende Adresse gesendet, sobald {name} sie freigibt.',
  state_approved: 'Freigegeben',
  state_approved_help: 'Die Rückerstattung wurde freigegeben und wird an die unten stehende Adresse gesendet.',
  state_sent: 'Gesendet',
  state_sent_help: 'Die Rückerstattung wurde gesendet und wartet auf Bestätigungen.',
  state_completed: 'Abgeschlossen',
  state_completed_help: 'Die Rückerstattung ist an der unten stehenden Adresse eingegangen.',
  state_cancelled: 'Storniert',
  state_cancelled_help: 'Diese Rückerstattung wurde storniert. Wenden Sie sich bei Fragen an {name}.',
  state_failed: 'Fehlgeschlagen',
  state_failed_help: 'Das Senden dieser Rückerstattung ist fehlgeschlagen. Wenden Sie sich an {name}.',
  paid_to: 'Gesendet an',
  txid: 'Transaktion',
  not_found_title: 'Seite nicht gefunden',
  not_found: 'Unter dieser Adresse gibt es keine Rückerstattung.',
  panel_title: 'Rückerstattung',
  panel_text: 'Eine Rückerstattung von {amount} {symbol} wartet auf Sie.',
  panel_link: 'Jetzt anfordern',
  email_subject: 'Ihre Rückerstattung von {name}',
  email_text:
    '{name} erstattet Ihnen {amount} {symbol} für die Rechnung {invoice}.\n\nUm sie zu erhalten, öffnen Sie diese Seite und geben Ihre {symbol}-Adresse über {network} an:\n{url}\n\nWenn Sie diese Nachricht nicht erwartet haben, ignorieren Sie sie.',
  hint_utxo: 'Verwenden Sie die Funktion „Nachricht signieren“ Ihrer Wallet mit der oben angegebenen Adresse und fügen Sie die angezeigte Base64-Signatur ein.',
  hint_evm: 'Signieren Sie die Nachricht mit Ihrer Wallet (personal_sign, wie „Nachricht signieren“) und fügen Sie die 0x…-Signatur ein.',
  hint_tron: 'Signieren Sie die Nachricht mit Ihrer Wallet (signMessageV2) und fügen Sie die Hex-Signatur ein.',
  hint_ada:
    'Signieren Sie die Nachricht mit Ihrer Wallet (CIP-30 signData) für die oben angegebene Adresse; fügen Sie sie als <COSE_Sign1 hex>.<COSE_Key hex> ein.',
  hint_ton: 'Signieren Sie die Nachricht mit dem Schlüssel Ihrer Wallet; fügen Sie sie als <Public Key hex>.<Signatur hex> ein.',
  hint_other: 'Signieren Sie die Nachricht mit dem Schlüssel der oben angegebenen Adresse und fügen Sie die Signatur ein.',
  err_claim_address_invalid: 'Dies ist keine Adresse für {symbol} über {network}. Prüfen Sie, ob Ihre Wallet {network} verwendet.',
  err_claim_address_mismatch: 'Die beiden Adressen unterscheiden sich. Geben Sie zweimal dieselbe Adresse ein.',
  err_claim_proof_required: 'Diese Rückerstattung erfordert eine Signatur der Nachricht durch die Adresse.',
  err_claim_proof_invalid: 'Die Signatur ist keine Signatur dieser Nachricht mit dem Schlüssel dieser Adresse.',
  err_claim_already_made: 'Diese Rückerstattung wurde bereits angefordert.',
  err_claim_closed: 'Diese Rückerstattung kann nicht mehr angefordert werden.',
  err_claim_not_found: 'Unter dieser Adresse gibt es keine Rückerstattung.',
  err_rate_limit_exceeded: 'Zu viele Versuche. Warten Sie einige Minuten und versuchen Sie es erneut.',
  err_form_expired: 'Dieses Formular ist abgelaufen. Laden Sie die Seite neu und senden Sie es erneut.',
  err_validation_error: 'Ein Teil Ihrer Eingaben konnte nicht gelesen werden. Prüfen Sie die Felder und versuchen Sie es erneut.',
  err_other: 'Die Anforderung konnte nicht angenommen werden.',
};

const MESSAGES: Readonly<Record<Locale, Readonly<Record<ClaimMessageKey, string>>>> = { en, de };

/** The error codes the page explains in words; any other refused claim shows `err_other`. */
export const CLAIM_ERROR_CODES = [
  'claim_address_invalid',
  'claim_address_mismatch',
  'claim_proof_required',
  'claim_proof_invalid',
  'claim_already_made',
  'claim_closed',
  'claim_not_found',
  'rate_limit_exceeded',
  'form_expired',
  'validation_error',
] as const;
export type ClaimErrorCode = (typeof CLAIM_ERROR_CODES)[number];

/** The text of `key` in `locale` (English for a language the page does not speak) with its placeholders filled. */
export function claimText(locale: Locale, key: ClaimMessageKey, values: Readonly<Record<string, string | number>> = {}): string {
  return (MESSAGES[locale] ?? en)[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The words for a refused claim's error code. */
export function claimErrorText(locale: Locale, code: string, values: Readonly<Record<string, string | number>>): string {
  const known = (CLAIM_ERROR_CODES as readonly string[]).includes(code);
  return claimText(locale, known ? (`err_${code}` as ClaimMessageKey) : 'err_other', values);
}
