import { isLocale, type Locale } from './i18n.js';

/** How a language tag matches a page language: exactly (`pt-BR` is `pt`), or only as a fallback (`zh-TW` reads `zh`, Simplified). */
interface TagMatch {
  readonly locale: Locale;
  readonly exact: boolean;
}

/** Traditional Chinese: a script subtag `hant`, or a region that writes it when no script is given. */
const TRADITIONAL_REGIONS = new Set(['tw', 'hk', 'mo']);

/**
 * The page language of a BCP 47 tag (`de`, `pt-BR`, `zh-Hans-CN`, `en_GB`), by its primary
 * subtag. Chinese in Traditional script (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO`) matches `zh`
 * (Simplified) only as a fallback: a language the payer listed after it that the pages speak
 * exactly wins.
 */
function matchTag(tag: string): TagMatch | undefined {
  const [primary, ...subtags] = tag.trim().toLowerCase().split(/[-_]/);
  if (!isLocale(primary)) return undefined;
  if (primary !== 'zh') return { locale: primary, exact: true };
  if (subtags.includes('hans')) return { locale: 'zh', exact: true };
  const traditional = subtags.includes('hant') || subtags.some((subtag) => TRADITIONAL_REGIONS.has(subtag));
  return { locale: 'zh', exact: !traditional };
}

/** Quality values as RFC 9110 writes them (`q=0.8`, at most three decimals); anything else is not one. */
const QUALITY = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;
/** The entries of a header read at most: a payer's browser sends a handful. */
const MAX_RANGES = 64;

/**
 * The language of a payer page. An explicit choice (the page's `?lang=`, from the language switch)
 * wins when it names a language the pages speak (`de`, also `pt-BR` or `zh-CN`); else the
 * `Accept-Language` header decides: its ranges by quality (`q=0` excludes), equal ones in the
 * order sent, region and script subtags ignored (`pt-BR` → `pt`, `zh-CN` and `zh-Hans` → `zh`),
 * Traditional Chinese as a fallback to `zh`; else English.
 *
 * ```ts
 * chooseLocale(ctx.query.lang, ctx.get('Accept-Language'))
 * chooseLocale(undefined, 'fr-CH, fr;q=0.9, en;q=0.8') // 'fr'
 * ```
 */
export function chooseLocale(explicit: unknown, acceptLanguage: string | undefined): Locale {
  if (typeof explicit === 'string' && explicit.length <= 35) {
    const chosen = matchTag(explicit);
    if (chosen) return chosen.locale;
  }
  const ranges = (acceptLanguage ?? '')
    .split(',', MAX_RANGES)
    .map((part, index) => {
      const [range = '', ...params] = part.split(';').map((piece) => piece.trim());
      const q = params.find((param) => /^q=/i.test(param));
      const quality = q === undefined ? 1 : QUALITY.test(q) ? Number(q.slice(2)) : 0;
      return { match: matchTag(range), quality, index };
    })
    .filter((range) => range.match && range.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((range) => range.match!);
  return (ranges.find((match) => match.exact) ?? ranges[0])?.locale ?? 'en';
}
