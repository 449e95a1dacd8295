// autocannon with `[<id>]` in the body replaced by a new id per request, printing its JSON result.
// (The CLI's -I sets Content-Length for a fixed id length that its ids do not have.)
// Usage: node bench/autocannon-unique.mjs URL CONNECTIONS SECONDS BODY [HEADER=VALUE ...]
import autocannon from 'autocannon';

const [url, connections, seconds, body, ...headerArgs] = process.argv.slice(2);
const headers = Object.fromEntries(
  headerArgs.map((h) => [h.slice(0, h.indexOf('=')), h.slice(h.indexOf('=') + 1)]),
);
let n = 0;
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [
    {
      method: 'POST',
      headers,
      setupRequest: (request) => ({ ...request, body: body.replaceAll('[<id>]', `${process.pid}-${n++}`) }),
    },
  ],
});
process.stdout.write(JSON.stringify(result));
