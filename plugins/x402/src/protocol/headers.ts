const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** base64 (standard, padded) of the UTF-8 JSON of `value`: how every x402 header carries its object. */
export function encodeX402Header(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** The JSON object a header carries; undefined for text that is not base64 of a JSON object. */
export function decodeX402Header(text: string | undefined): Record<string, unknown> | undefined {
  if (!text || text.length > 16_384 || !BASE64.test(text.trim())) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(text.trim(), 'base64').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
