import pino, { type Logger } from 'pino';

/** Keys in a query string must not reach the logs. */
function redactUrl(url: string): string {
  return url.replace(/([?&]personal_api_key=)[^&]*/gi, '$1[redacted]');
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'burrow' },
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (req: { id: string; method: string; url: string; ip?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        ip: req.ip,
      }),
    },
  });
}
