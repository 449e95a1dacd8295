import { describe, expect, it } from 'vitest';
import { decodeJsonBodyAsync, plainJsonBody } from '../../src/capture/decode.js';

/** The in-line shortcut for small plain `/flags/` bodies decodes as the full decoder, or declines. */
describe('plain JSON /flags/ bodies', () => {
  const limits = { maxDecodedBytes: 2 * 1024 * 1024, maxDepth: 4 };
  const input = (text: string, contentType: string | undefined = 'application/json') => ({
    method: 'POST' as const,
    contentType,
    contentEncoding: undefined,
    query: {},
    body: Buffer.from(text),
  });
  const full = async (text: string, type?: string) => {
    try {
      return { ok: await decodeJsonBodyAsync(input(text, type), limits) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  it('answers as decodeJsonBodyAsync whenever it answers, and declines what it does not know', async () => {
    const bodies = [
      '{"token":"t","distinct_id":"u","person_properties":{"a":1}}',
      '  {"a":"}{\\"[" , "b":[1,{"c":2}]}  \n',
      '{"__proto__":{"x":1},"a":1}',
      '{"constructor":{"prototype":{}},"a":"\\u0041"}',
      '{"a":{"b":{"c":{"d":1}}}}',
      '{"a":{"b":{"c":{"d":{"e":1}}}}}',
      '{"a":1}{"b":2}',
      '{"a":1}}',
      '{"a":"unterminated}',
      '{"a":1,}',
      '[1,2]',
      '"text"',
      '\ufeff{"a":1}',
      '{"a":"é🦔"}',
    ];
    for (const text of bodies)
      for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain', undefined]) {
        const quick = plainJsonBody(input(text, type), limits);
        if (quick !== undefined) expect({ ok: quick }).toEqual(await full(text, type));
      }
    expect(plainJsonBody(input('{"a":1}'), limits)).toEqual({ a: 1 });
    expect(plainJsonBody(input('{"a":{"b":{"c":{"d":{"e":1}}}}}'), limits)).toBeUndefined();
    expect(plainJsonBody(input('{"a":1}', 'application/x-www-form-urlencoded'), limits)).toBeUndefined();
    expect(plainJsonBody({ ...input('{"a":1}'), contentEncoding: 'gzip' }, limits)).toBeUndefined();
  });
});
