/**
 * A client for OpenAI-compatible `/chat/completions` (OpenAI, Azure-style proxies, vLLM, Ollama,
 * LiteLLM…): one non-streaming request, bounded in time and in answer size.
 */
export interface LlmConfig {
  /** Base URL (`https://api.openai.com/v1`) or the full `/chat/completions` URL. */
  url: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export type LlmFailure = 'timeout' | 'http' | 'network' | 'malformed';

export class LlmError extends Error {
  constructor(
    readonly kind: LlmFailure,
    message: string,
    readonly status?: number,
    readonly retryAfter?: string,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

const MAX_ANSWER_BYTES = 1_000_000;

export function endpointOf(url: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/chat/completions') ? base : `${base}/chat/completions`;
}

async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw new LlmError('malformed', `answer larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The assistant's text; throws LlmError for anything but a well-formed successful answer. */
export async function complete(config: LlmConfig, messages: ChatMessage[]): Promise<string> {
  const signal = AbortSignal.timeout(config.timeoutMs);
  try {
    const res = await fetch(endpointOf(config.url), {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${config.apiKey}`,
      },
      body: JSON.stringify({ model: config.model, messages, temperature: 0, stream: false }),
    });
    const text = await readCapped(res, MAX_ANSWER_BYTES);
    if (!res.ok) {
      throw new LlmError(
        'http',
        `answered HTTP ${res.status}`,
        res.status,
        res.headers.get('retry-after') ?? undefined,
      );
    }
    let body: { choices?: Array<{ message?: { content?: unknown } }> };
    try {
      body = JSON.parse(text);
    } catch {
      throw new LlmError('malformed', 'answered with something other than JSON');
    }
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string')
      throw new LlmError('malformed', 'answered without choices[0].message.content');
    return content;
  } catch (err) {
    if (err instanceof LlmError) throw err;
    if (signal.aborted) throw new LlmError('timeout', `did not answer within ${config.timeoutMs} ms`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new LlmError(
      'network',
      `could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`,
    );
  }
}

/** The SQL of an answer: the first fenced block, else the whole text; or the model's "UNCLEAR: why". */
export function extractSql(answer: string): { sql: string } | { unclear: string } {
  const unclear = /^\s*UNCLEAR\b[:\s-]*([\s\S]*)$/i.exec(answer);
  if (unclear) return { unclear: (unclear[1] ?? '').trim() };
  const fenced = /```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/.exec(answer);
  const sql = (fenced ? (fenced[1] ?? '') : answer)
    .trim()
    .replace(/;+\s*$/, '')
    .trim();
  return { sql };
}
