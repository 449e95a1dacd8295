import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from '../domain/organizations/mail.js';

export interface ClosableMailer extends Mailer {
  /** Waits for messages still being sent, then closes the SMTP connection. */
  close(): Promise<void>;
}

/**
 * SMTP through nodemailer, or null when `SMTP_URL` is not set. Sending happens after the response
 * (PostHog queues invite emails too); failures are logged and never fail the request.
 */
export function createMailer(
  smtpUrl: string | undefined,
  from: string,
  log: FastifyBaseLogger,
): ClosableMailer | null {
  if (!smtpUrl) return null;
  // nodemailer is loaded only when SMTP_URL is set.
  const transport = import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport(smtpUrl, { from }),
  );
  const pending = new Set<Promise<void>>();
  return {
    deliver(email) {
      const sending: Promise<void> = transport
        .then((t) => t.sendMail(email))
        .then((info) => log.info({ to: email.to, messageId: info.messageId }, 'email sent'))
        .catch((err) => log.error({ err, to: email.to }, 'email could not be sent'))
        .finally(() => pending.delete(sending));
      pending.add(sending);
    },
    async close() {
      await Promise.allSettled([...pending]);
      (await transport).close();
    },
  };
}
