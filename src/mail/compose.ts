import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { MailMessage } from './mailer.ts';

/**
 * One paragraph of an email: its words, and optionally a link on its own line after them (in the
 * plain part the bare address, so any reader can copy it; in the HTML part the same address as a
 * link). `html` words the paragraph for the HTML part when it emphasises something; it must say
 * the same as `text`.
 */
export interface MailParagraph {
  readonly text: string;
  readonly html?: HtmlEscapedString | Promise<HtmlEscapedString>;
  readonly link?: string;
}

/**
 * The one way Lectern writes an email: a plain-text part for every reader and an HTML part for
 * those that render it, from the same paragraphs, so the two never say different things. Every
 * value is escaped in the HTML part (hono's html template).
 */
export async function composeMail(
  to: string,
  fromName: string,
  subject: string,
  paragraphs: readonly MailParagraph[],
): Promise<MailMessage> {
  const text = paragraphs.map((p) => (p.link ? `${p.text}\n${p.link}` : p.text)).join('\n\n');
  const body = await html`<!doctype html><html lang="en"><body>
${paragraphs.map((p) => html`<p>${p.html ?? p.text}${p.link ? html`<br><a href="${p.link}">${p.link}</a>` : ''}</p>`)}
</body></html>`;
  return { to, fromName, subject, text: `${text}\n`, html: body.toString() };
}
