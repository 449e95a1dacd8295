import { invalidPayload } from '../../capture/errors.js';

/** One part of a `multipart/form-data` body: its name, headers (lower-cased) and bytes. */
export interface FormPart {
  name: string;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  data: Buffer;
}

/** The `boundary` parameter of a `multipart/form-data` content type (400 without one). */
export function formBoundary(contentType: string | undefined): string {
  const value = contentType ?? '';
  if (!/^\s*multipart\/form-data\b/i.test(value)) {
    throw invalidPayload('Content-Type must be multipart/form-data');
  }
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(value);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary || boundary.length > 200) throw invalidPayload('Invalid boundary in Content-Type');
  return boundary;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

function partHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/**
 * Splits a whole `multipart/form-data` body into its parts (RFC 7578). The body is already in
 * memory and bounded by the route's limit, so a plain scan for the delimiter does: the parts are
 * views of the body, not copies. Anything that is not a well-formed form is a 400.
 */
export function parseForm(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw invalidPayload('Multipart parsing failed: no boundary found in the body');
  for (;;) {
    const after = at + delimiter.length;
    // `--boundary--` closes the form.
    if (body[after] === 0x2d && body[after + 1] === 0x2d) return parts;
    if (!body.subarray(after, after + 2).equals(CRLF)) {
      throw invalidPayload('Multipart parsing failed: malformed boundary line');
    }
    const headersEnd = body.indexOf(HEADERS_END, after + 2);
    if (headersEnd < 0) throw invalidPayload('Multipart parsing failed: part without headers');
    const headers = partHeaders(body.subarray(after + 2, headersEnd).toString('utf8'));
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headersEnd + 4);
    if (next < 0) throw invalidPayload('Multipart parsing failed: incomplete stream');
    const disposition = headers.get('content-disposition') ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (!/^form-data\b/i.test(disposition) || name === undefined) {
      throw invalidPayload('Multipart parsing failed: part without a form-data name');
    }
    parts.push({
      name,
      contentType: headers.get('content-type'),
      contentEncoding: headers.get('content-encoding'),
      data: body.subarray(headersEnd + 4, next),
    });
    at = next + CRLF.length;
  }
}
