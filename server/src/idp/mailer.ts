import nodemailer from 'nodemailer';
import type { Config } from '../kernel/config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * E-mail through the SMTP server SMTP_URL names (nodemailer), or null when it is
 * unset: the server then sends no e-mail at all, and reset links go from the
 * operator to the person by hand (docs/self-hosting.md, "Lost passwords").
 * Plain text only: a reset link needs nothing more, and nothing in it is HTML.
 */
export function createMailer(config: Config): Mailer | null {
  if (!config.mail.smtpUrl) return null;
  const transport = nodemailer.createTransport(config.mail.smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from: config.mail.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
