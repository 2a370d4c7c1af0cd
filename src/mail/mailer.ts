import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/** One email: plain text for every reader, HTML for those that render it. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** Shown as the sender's name, e.g. the school's ("Demo Academy via Lectern"). */
  readonly fromName?: string;
}

/**
 * Outgoing mail. `enabled` is false when no `SMTP_URL` is configured: callers then show the link
 * once to the person who asked for it (an inviting operator, the CLI) instead of mailing it.
 */
export interface Mailer {
  readonly enabled: boolean;
  /** Sends one message; rejects when the SMTP server refuses it or cannot be reached. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** How long one delivery may take before the SMTP connection is given up. */
const SMTP_TIMEOUT_MS = 10_000;

/** A mailer over `SMTP_URL` (nodemailer), or a disabled one when there is none. */
export function createMailer(options: { smtpUrl?: string; from: string; logger: Logger }): Mailer {
  if (!options.smtpUrl) {
    return {
      enabled: false,
      send: () => Promise.reject(new Error('no SMTP_URL is configured: mail cannot be sent')),
      close: () => {},
    };
  }
  const url = new URL(options.smtpUrl);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    secure: url.protocol === 'smtps:',
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  const address = options.from.match(/<([^>]+)>\s*$/)?.[1] ?? options.from;
  return {
    enabled: true,
    async send(message) {
      const from = message.fromName ? { name: message.fromName, address } : options.from;
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
      // The recipient and subject are enough to trace a delivery; the body holds one-time links.
      options.logger.debug({ to: message.to, subject: message.subject }, 'mail sent');
    },
    close: () => transport.close(),
  };
}
