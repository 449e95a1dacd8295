import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from 'chdb';
import { afterAll, describe, expect, it } from 'vitest';
import { lengthPrefixedSnappy, snappyLiterals } from '../../src/domain/recordings/snappy.js';

/**
 * The Snappy blocks of `decompress=false` read back by a real Snappy decoder: ClickHouse's
 * `snappy` input compression (libsnappy), which wants Hadoop's framing around each raw block.
 */
const dir = mkdtempSync(join(tmpdir(), 'burrow-snappy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function decodeWithLibsnappy(raw: Buffer, plainLength: number): string {
  const be = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    return b;
  };
  const file = join(dir, `${Math.random().toString(36).slice(2)}.snappy`);
  writeFileSync(file, Buffer.concat([be(plainLength), be(raw.length), raw]));
  return query(`SELECT hex(line) FROM file('${file}', 'RawBLOB', 'line String', 'snappy')`, 'TSVRaw').trim();
}

describe('Snappy literal blocks', () => {
  it.each([
    ['a short line', '["w1",{"type":4}]\n'],
    [
      'text past one 64 KiB literal, with multi-byte characters',
      `["w",${JSON.stringify('é🙂x'.repeat(40_000))}]\n`,
    ],
    ['exactly one literal chunk', 'x'.repeat(65_536)],
    ['nothing', ''],
  ])('decodes %s', (_name, text) => {
    const plain = Buffer.from(text);
    const raw = snappyLiterals(plain);
    if (plain.length === 0) {
      expect([...raw]).toEqual([0]);
      return;
    }
    expect(decodeWithLibsnappy(raw, plain.length)).toBe(plain.toString('hex').toUpperCase());
  });

  it('frames each block with its 4-byte big-endian length', () => {
    const body = lengthPrefixedSnappy(['["a",1]\n', '["b",2]\n["b",3]\n']);
    const first = body.readUInt32BE(0);
    const second = body.readUInt32BE(4 + first);
    expect(4 + first + 4 + second).toBe(body.length);
    expect(decodeWithLibsnappy(body.subarray(4, 4 + first), 8)).toBe(
      Buffer.from('["a",1]\n').toString('hex').toUpperCase(),
    );
  });
});
