import test from 'ava';
import { chooseLocale } from './locale-choice.js';

test('Accept-Language: the highest quality the pages speak wins, equal qualities in the order sent', (t) => {
  t.is(chooseLocale(undefined, 'de-CH;q=0.4, en;q=0.6'), 'en');
  t.is(chooseLocale(undefined, 'fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5'), 'fr');
  t.is(chooseLocale(undefined, 'ja, ko;q=0.9, it;q=0.8, es;q=0.8'), 'it');
  t.is(chooseLocale(undefined, 'tr;q=0.5,es;q=0.5'), 'tr');
  t.is(chooseLocale(undefined, 'es;q=0.2, pt;q=0.9'), 'pt');
});

test('Accept-Language: region and script subtags fall back to the language', (t) => {
  t.is(chooseLocale(undefined, 'pt-BR'), 'pt');
  t.is(chooseLocale(undefined, 'pt-PT,pt;q=0.9'), 'pt');
  t.is(chooseLocale(undefined, 'zh-CN,zh;q=0.9,en;q=0.8'), 'zh');
  t.is(chooseLocale(undefined, 'zh-Hans'), 'zh');
  t.is(chooseLocale(undefined, 'zh-Hans-HK'), 'zh', 'a Simplified script wins over the region');
  t.is(chooseLocale(undefined, 'ES-mx'), 'es', 'case does not matter');
  t.is(chooseLocale(undefined, 'en_GB'), 'en');
});

test('Accept-Language: Traditional Chinese reads Simplified only when nothing else the payer listed is spoken', (t) => {
  t.is(chooseLocale(undefined, 'zh-TW'), 'zh');
  t.is(chooseLocale(undefined, 'zh-Hant'), 'zh');
  t.is(chooseLocale(undefined, 'zh-HK, en;q=0.5'), 'en');
  t.is(chooseLocale(undefined, 'zh-Hant-TW, ja;q=0.8'), 'zh');
});

test('Accept-Language: q=0 excludes, malformed qualities and unknown languages count for nothing, nothing spoken is English', (t) => {
  t.is(chooseLocale(undefined, 'de;q=0, fr;q=0.1'), 'fr');
  t.is(chooseLocale(undefined, 'de;q=2, it;q=0.3'), 'it', 'q above 1 is malformed');
  t.is(chooseLocale(undefined, 'de;q=abc, it;q=0.3'), 'it');
  t.is(chooseLocale(undefined, 'de;Q=0.9, it;q=0.3'), 'de', 'the q parameter is case-insensitive');
  t.is(chooseLocale(undefined, 'xx, *'), 'en');
  t.is(chooseLocale(undefined, ''), 'en');
  t.is(chooseLocale(undefined, undefined), 'en');
  t.is(chooseLocale(undefined, ',,;;q=,de'), 'de');
});

test('?lang= wins over the header when it names a language the pages speak, in any tag form', (t) => {
  t.is(chooseLocale('de', 'fr'), 'de');
  t.is(chooseLocale('pt-BR', 'fr'), 'pt');
  t.is(chooseLocale('zh-CN', 'fr'), 'zh');
  t.is(chooseLocale('xx', 'fr'), 'fr', 'an unknown language falls back to the header');
  t.is(chooseLocale(['de'], 'it'), 'it', 'a repeated parameter is no choice');
  t.is(chooseLocale('', undefined), 'en');
});
