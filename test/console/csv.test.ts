import { describe, expect, it } from 'vitest';
import { toCsv } from '../../web/src/pages/sql-tools/csv.js';

describe('SQL result CSV export', () => {
  it('quotes fields with commas, quotes and line breaks, null as empty, CRLF rows', () => {
    const csv = toCsv(
      ['a', 'b'],
      [
        ['x,y', 'say "hi"'],
        [null, 'two\nlines'],
        [[1, 2], { k: 'v' }],
      ],
    );
    expect(csv).toBe('a,b\r\n"x,y","say ""hi"""\r\n,"two\nlines"\r\n"[1,2]","{""k"":""v""}"\r\n');
  });

  it('defuses text a spreadsheet would run as a formula, but leaves numbers alone', () => {
    const csv = toCsv(
      ['v'],
      [['=HYPERLINK("http://evil","x")'], ['+1+1'], ['-2+3'], ['@SUM(A1)'], ['\tcmd'], [-5], ['ok']],
    );
    expect(csv.split('\r\n').slice(1, -1)).toEqual([
      `"'=HYPERLINK(""http://evil"",""x"")"`,
      "'+1+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\tcmd",
      '-5',
      'ok',
    ]);
  });
});
