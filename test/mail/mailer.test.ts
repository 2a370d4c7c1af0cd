import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';

let smtp: TestSmtpServer;
before(async () => {
  smtp = await startTestSmtpServer();
});
after(() => smtp.close());

const logger = pino({ level: 'silent' });

test('with SMTP_URL, a message goes out as plain text plus HTML through a real SMTP server', async () => {
  const mailer = createMailer({ smtpUrl: smtp.url, from: 'Lectern <no-reply@lectern.test>', logger });
  assert.equal(mailer.enabled, true);
  await mailer.send({
    to: 'ada@example.com',
    subject: 'Hello',
    text: 'Plain words https://lectern.test/x',
    html: '<p>Plain <b>words</b></p>',
    fromName: 'Demo Academy',
  });
  const mail = await smtp.waitFor((m) => m.subject === 'Hello');
  assert.deepEqual(mail.envelopeTo, ['ada@example.com']);
  assert.equal(mail.from, '"Demo Academy" <no-reply@lectern.test>');
  assert.equal(mail.text.trim(), 'Plain words https://lectern.test/x');
  assert.equal(mail.html, '<p>Plain <b>words</b></p>');
  mailer.close();
});

test('wrong SMTP credentials reject the send instead of losing it silently', async () => {
  const url = smtp.url.replace('smtp-secret', 'wrong');
  const mailer = createMailer({ smtpUrl: url, from: 'no-reply@lectern.test', logger });
  await assert.rejects(
    mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' }),
    /Invalid login|Invalid username/,
  );
  mailer.close();
});

test('without SMTP_URL the mailer is disabled and says why when asked to send', async () => {
  const mailer = createMailer({ from: 'no-reply@lectern.test', logger });
  assert.equal(mailer.enabled, false);
  await assert.rejects(
    mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' }),
    /no SMTP_URL/,
  );
});

test('SMTP_URL and MAIL_FROM are validated without echoing the URL (it may hold a password)', () => {
  const base = { NODE_ENV: 'test', DATABASE_URL: ':memory:', BASE_URL: 'https://learn.example.com' };
  assert.throws(
    () => loadConfig({ ...base, SMTP_URL: 'http://user:hunter2@mail.example.com' }),
    (err: Error) => err.message.startsWith('SMTP_URL: ') && !err.message.includes('hunter2'),
  );
  assert.throws(
    () => loadConfig({ ...base, MAIL_FROM: 'not an address' }),
    /^ConfigError: MAIL_FROM|MAIL_FROM/,
  );
  const config = loadConfig({ ...base, SMTP_URL: 'smtps://u:p@mail.example.com:465' });
  assert.equal(config.smtpUrl, 'smtps://u:p@mail.example.com:465');
  assert.equal(config.mailFrom, 'Lectern <no-reply@learn.example.com>');
});
