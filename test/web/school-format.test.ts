/**
 * The one formatter of money, dates and sizes (web/shared/school-format.ts): what every area's
 * pages say, in the school's locale, currency and zone, and never an exception for a stored value
 * Intl does not know (a page shows it, it does not fail).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  count,
  currencyDigits,
  currencyName,
  dateTime,
  fileSize,
  money,
  percent,
  price,
  schoolFormat,
  timeOf,
  utcTimeOf,
} from '../../src/web/shared/school-format.ts';

const london = { locale: 'en-GB', timezone: 'Europe/London', currency: 'GBP' };
const berlin = { locale: 'de-DE', timezone: 'Europe/Berlin', currency: 'EUR' };
const tokyo = { locale: 'ja-JP', timezone: 'Asia/Tokyo', currency: 'JPY' };
// Intl separates a number from its currency or unit with a no-break space in some locales.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('one money and date formatter', () => {
  it('says amounts in minor units in the school’s locale and currency, each currency’s decimals', () => {
    assert.equal(money(london, 4900), '£49.00');
    assert.equal(plain(money(berlin, 4950)), '49,50 €');
    assert.equal(money(tokyo, 4900), '￥4,900');
    assert.equal(money(london, 4900, 'USD'), 'US$49.00');
    assert.deepEqual([currencyDigits('EUR'), currencyDigits('JPY'), currencyDigits('KWD')], [2, 0, 3]);
  });

  it('a currency code Intl does not know is written after the amount, never an error', () => {
    assert.equal(money(london, 4900, 'XX1'), '49.00 XX1');
    assert.equal(currencyDigits('XX1'), 2);
    assert.equal(currencyName(london, 'XX1'), 'XX1');
    assert.equal(currencyName(london, 'EUR'), 'Euro');
  });

  it('a price of 0 is Free; any other is the amount', () => {
    assert.equal(price(london, 0), 'Free');
    assert.equal(price(london, 1999, 'EUR'), '€19.99');
  });

  it('counts, shares and file sizes in the school’s locale', () => {
    assert.equal(count(berlin, 1234567), '1.234.567');
    assert.equal(percent(london, 0.225), '22.5%');
    assert.equal(fileSize(london, 512), '512 bytes');
    assert.equal(fileSize(london, 18_000), '18 kB');
    assert.equal(plain(fileSize(berlin, 1_250_000)), '1,3 MB');
  });

  it('instants in the school’s zone; a page of no school says UTC; a stored non-instant is shown as it is', () => {
    // 13:05 UTC is 14:05 in Berlin in winter (CET) and 22:05 in Tokyo.
    assert.equal(dateTime(london, '2026-11-27T13:05:00.000Z'), '27 Nov 2026, 13:05');
    assert.equal(dateTime(tokyo, '2026-11-27T13:05:00.000Z'), '2026/11/27 22:05');
    assert.equal(
      String(timeOf(berlin, '2026-11-27T13:05:00.000Z')),
      '<time datetime="2026-11-27T13:05:00.000Z">27.11.2026, 14:05</time>',
    );
    assert.equal(
      String(utcTimeOf('2026-11-27T13:05:00.000Z')),
      '<time datetime="2026-11-27T13:05:00.000Z">2026-11-27 13:05 UTC</time>',
    );
    assert.equal(dateTime(london, 'not a time'), 'not a time');
  });

  it('binds one school’s formatters for a page', () => {
    const f = schoolFormat(berlin);
    assert.equal(plain(f.money(4900)), '49,00 €');
    assert.equal(
      String(f.date('2026-03-03T10:00:00.000Z')),
      '<time datetime="2026-03-03T10:00:00.000Z">3. März 2026</time>',
    );
  });
});
