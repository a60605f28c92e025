import test from 'ava';
import { CHECKOUT_MESSAGES } from './checkout-messages.js';
import { defineMessages, LOCALE_NAMES, LOCALES, placeholderMismatches, type Translations } from './i18n.js';
import { SHELL_MESSAGES } from './payer-page.js';

test('every language of the checkout page and the page shell fills every placeholder English fills, and no other', (t) => {
  t.deepEqual(placeholderMismatches(CHECKOUT_MESSAGES), []);
  t.deepEqual(placeholderMismatches(SHELL_MESSAGES), []);
});

test('every language has every key, and no text is left empty or in English where English is not the language', (t) => {
  const english = CHECKOUT_MESSAGES.catalogue.en;
  for (const locale of LOCALES) {
    const texts = CHECKOUT_MESSAGES.catalogue[locale];
    t.deepEqual(Object.keys(texts).sort(), [...CHECKOUT_MESSAGES.keys].sort(), locale);
    t.deepEqual(
      CHECKOUT_MESSAGES.keys.filter((key) => texts[key].trim() === ''),
      [],
      `${locale}: empty texts`,
    );
    if (locale === 'en') continue;
    // Texts of placeholders and units ("{minutes} min {seconds} s") may read the same; a sentence may not.
    const words = (text: string) =>
      text
        .replace(/\{\w+\}/g, '')
        .split(/\s+/)
        .filter((word) => word.length > 1).length;
    const untranslated = CHECKOUT_MESSAGES.keys.filter((key) => texts[key] === english[key] && words(english[key]) > 1);
    t.deepEqual(untranslated, [], `${locale}: left in English`);
  }
  t.deepEqual(Object.keys(LOCALE_NAMES), [...LOCALES]);
});

test('placeholderMismatches finds a lost placeholder, an invented one and a missing text', (t) => {
  const translations = Object.fromEntries(
    LOCALES.filter((l) => l !== 'en').map((l) => [l, { greet: 'Hallo {name}', bye: 'Tschüss {name}' }]),
  ) as unknown as Translations<'greet' | 'bye'>;
  const broken = defineMessages(
    { greet: 'Hello {name}', bye: 'Bye {name}' },
    { ...translations, fr: { greet: 'Bonjour', bye: 'Au revoir {nom}' }, zh: { greet: '你好 {name}' } as never },
  );
  t.deepEqual(placeholderMismatches(broken), ['fr.greet: lacks {name}', 'fr.bye: lacks {name}', 'fr.bye: has {nom}, which English lacks', 'zh.bye: missing']);
});

test('t fills placeholders, leaves unknown ones as written, and is bound per language by in()', (t) => {
  t.is(CHECKOUT_MESSAGES.t('de', 'title', { amount: '1,5', symbol: 'BTC' }), '1,5 BTC bezahlen');
  t.is(CHECKOUT_MESSAGES.t('zh', 'title', { amount: '1.5' }), '支付 1.5 {symbol}');
  const fr = CHECKOUT_MESSAGES.in('fr');
  t.is(fr('pay_to', { name: '<Shop>' }), 'Paiement à <Shop>', 'plain text: the html template escapes it');
});
