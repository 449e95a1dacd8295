import pino, { type Logger } from 'pino';

/** Keys in a query string must not reach the logs. */
function redactUrl(url: string): string {
  return url.replace(/([?&]personal_api_key=)[^&]*/gi, '$1[redacted]');
}

/** `destination`: where the lines go (standard output when not given). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
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
  };
  return destination ? pino(options, destination) : pino(options);
}
