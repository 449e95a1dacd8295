import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodeSymbolData,
  sourceAndMapPayload,
  writeSymbolDataV2,
} from '../../src/domain/error-tracking/symbol-data.js';
import { zstdAvailable } from '../../src/domain/error-tracking/zstd.js';

/**
 * posthog-cli's version 2 container (one compression byte, then the payload; the CLI compresses
 * with zstd at level 3). The zstd frames here come from the zstd command-line tool, the reference
 * encoder. Without a decoder (Node < 22.15 and no fzstd) a compressed set is a 400 that says so.
 */
const ZSTD_CLI = ['/usr/bin/zstd', '/bin/zstd'].find((p) => existsSync(p));
const zstd = (data: Buffer) => execFileSync(ZSTD_CLI as string, ['-q', '-3', '-c'], { input: data });
const MAP = JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 'AAAA' });

describe('symbol set containers, version 2', () => {
  it('reads an uncompressed version 2 container (the compression is one byte)', async () => {
    const data = writeSymbolDataV2(sourceAndMapPayload('var a=1;', MAP), 0);
    expect(data.length).toBe(22 + 4 + 4 + 1 + 8 + 8 + 8 + MAP.length);
    await expect(decodeSymbolData(data)).resolves.toEqual({ minifiedSource: 'var a=1;', sourcemap: MAP });
  });

  it('refuses an unknown compression', async () => {
    const data = writeSymbolDataV2(sourceAndMapPayload('x', MAP), 0);
    data.writeUInt8(7, 30);
    await expect(decodeSymbolData(data)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_symbol_set',
      detail: expect.stringMatching(/unknown compression 7/),
    });
  });

  it.skipIf(!ZSTD_CLI)('decodes a zstd container, or says which decoder is missing', async () => {
    const source = 'function f(){throw new Error("x")}'.repeat(200);
    const data = writeSymbolDataV2(zstd(sourceAndMapPayload(source, MAP)), 1);
    if (await zstdAvailable()) {
      await expect(decodeSymbolData(data)).resolves.toEqual({ minifiedSource: source, sourcemap: MAP });
    } else {
      await expect(decodeSymbolData(data)).rejects.toMatchObject({
        status: 400,
        code: 'invalid_symbol_set',
        detail: expect.stringMatching(/fzstd/),
      });
    }
  });

  it.skipIf(!ZSTD_CLI)('bounds what a zstd payload decompresses to (100 MB)', async () => {
    if (!(await zstdAvailable())) return;
    // 101 MB of zeros compress to a few kilobytes: refused while decoding, not after.
    const bomb = writeSymbolDataV2(zstd(Buffer.alloc(101 * 1024 * 1024)), 1);
    expect(bomb.length).toBeLessThan(100_000);
    await expect(decodeSymbolData(bomb)).rejects.toMatchObject({
      code: 'invalid_symbol_set',
      detail: expect.stringMatching(/more than/),
    });
    const garbage = writeSymbolDataV2(Buffer.from('not zstd at all'), 1);
    await expect(decodeSymbolData(garbage)).rejects.toMatchObject({ code: 'invalid_symbol_set' });
  });
});
