import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * BENCHMARKS.md opens with one table of targets (issue 39) that a newcomer reads for today's
 * figures and that `--json` runs can be checked against. This keeps its shape: it is the first
 * section, every row has its six cells, a date, a known status word, and a command naming a bench
 * script that exists and prints its results with `--json` (imports `reporter` from bench/lib.ts and
 * calls it with its own name). A script not written yet is allowed only in a row marked
 * `(to write)` whose status is `not measured`. No server, no figures measured.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const HEADER = ['what', 'goal (issue)', 'latest figure', 'date', 'command', 'status'];
/** A status starts with one of these (what follows explains it: "not met in the last run (...)"). */
const STATUSES = ['not measured', 'not met', 'partly', 'met'];

interface Row {
  line: number;
  cells: string[];
}

/** What a row's command is checked against: the repository's files and npm scripts. */
interface Repo {
  read(path: string): string | undefined;
  npmScripts: Record<string, string>;
}

/** Splits a Markdown table line into its trimmed cells (`\|` inside a cell is kept). */
function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim());
}

/**
 * The Targets table: the first `##` section of the page must be `## Targets`, and its first
 * non-prose block the table with HEADER. Returns the rows, or throws saying what is wrong.
 */
function targetsTable(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const firstSection = lines.findIndex((l) => l.startsWith('## '));
  if (firstSection < 0 || lines[firstSection]?.trim() !== '## Targets')
    throw new Error(`the first section must be "## Targets", found ${JSON.stringify(lines[firstSection])}`);
  if (lines.slice(0, firstSection).some((l) => l.trim().startsWith('|')))
    throw new Error('a table comes before the Targets table');
  let at = firstSection + 1;
  while (at < lines.length && !lines[at]?.trim().startsWith('|')) {
    if (lines[at]?.startsWith('#')) throw new Error('the Targets section has no table');
    at++;
  }
  const header = cellsOf(lines[at] ?? '');
  if (JSON.stringify(header) !== JSON.stringify(HEADER))
    throw new Error(
      `the Targets table's header is ${JSON.stringify(header)}, expected ${JSON.stringify(HEADER)}`,
    );
  if (!/^\|(\s*:?-+:?\s*\|)+$/.test(lines[at + 1]?.trim() ?? ''))
    throw new Error('the Targets table has no separator line under its header');
  const rows: Row[] = [];
  for (let i = at + 2; i < lines.length && lines[i]?.trim().startsWith('|'); i++)
    rows.push({ line: i + 1, cells: cellsOf(lines[i] as string) });
  return rows;
}

/** The bench scripts a command names, directly or through `npm run <script>`; problems found on the way. */
function benchScriptsOf(command: string, repo: Repo): { scripts: string[]; problems: string[] } {
  const problems: string[] = [];
  const code = [...command.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).join(' ; ');
  if (!code) return { scripts: [], problems: ['the command is not written as `code`'] };
  const scripts = new Set([...code.matchAll(/\bbench\/[\w.-]+\.ts\b/g)].map((m) => m[0]));
  for (const [, name] of code.matchAll(/\bnpm run ([\w:.-]+)/g)) {
    const body = repo.npmScripts[name as string];
    if (body === undefined) problems.push(`npm script "${name}" is not in package.json`);
    else for (const m of body.matchAll(/\bbench\/[\w.-]+\.ts\b/g)) scripts.add(m[0]);
  }
  return { scripts: [...scripts], problems };
}

/** Whether a bench script's source prints its results with `--json`: imports `reporter` and calls it with its name. */
function reportsJson(path: string, source: string): boolean {
  const name = path.replace(/^bench\//, '').replace(/\.ts$/, '');
  const imports = /import\s*(type\s*)?\{[^}]*\breporter\b[^}]*\}\s*from\s*'\.\/lib\.js'/.test(source);
  return imports && source.includes(`reporter('${name}')`);
}

/** Everything wrong with one row of the table (empty when it is right). */
function rowProblems(row: Row, repo: Repo): string[] {
  if (row.cells.length !== HEADER.length)
    return [
      `${row.cells.length} cells instead of ${HEADER.length} (what, goal (issue), latest figure, date, command, status)`,
    ];
  const [what, goal, figure, date, command, status] = row.cells as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const problems: string[] = [];
  if (!what) problems.push('no "what"');
  if (!/\(#\d+/.test(goal)) problems.push(`the goal names no issue as "(#N)": ${goal}`);
  if (!figure) problems.push('no latest figure');
  const statusWord = STATUSES.find((s) => status === s || new RegExp(`^${s}\\b`).test(status));
  if (!statusWord) problems.push(`status "${status}" does not start with one of ${STATUSES.join(', ')}`);
  const notMeasured = statusWord === 'not measured';
  if (notMeasured ? !/^(—|\d{4}-\d{2}-\d{2})$/.test(date) : !/^\d{4}-\d{2}-\d{2}$/.test(date))
    problems.push(`date "${date}" is not YYYY-MM-DD${notMeasured ? ' (or — when not measured)' : ''}`);
  else if (date !== '—' && Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
    problems.push(`date "${date}" is not a real day`);
  const { scripts, problems: commandProblems } = benchScriptsOf(command, repo);
  problems.push(...commandProblems);
  if (scripts.length === 0 && commandProblems.length === 0)
    problems.push(`the command names no bench/ script: ${command}`);
  const toWrite = command.includes('(to write)');
  if (toWrite && !notMeasured)
    problems.push('a command "(to write)" in a row whose status is not "not measured"');
  for (const script of scripts) {
    const source = repo.read(script);
    if (source === undefined) {
      if (!toWrite) problems.push(`${script} does not exist`);
    } else if (!reportsJson(script, source))
      problems.push(
        `${script} does not print its results with --json (import reporter from './lib.js', call reporter('<name>'))`,
      );
  }
  return problems;
}

const realRepo: Repo = {
  read: (path) => (existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined),
  npmScripts: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts,
};

describe('BENCHMARKS.md Targets table', () => {
  it('opens the page, every row complete, every command a bench that prints --json', () => {
    const rows = targetsTable(readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8'));
    expect(rows.length).toBeGreaterThan(20);
    const problems = rows.flatMap((row) =>
      rowProblems(row, realRepo).map((p) => `BENCHMARKS.md:${row.line} (${row.cells[0]}): ${p}`),
    );
    expect(problems).toEqual([]);
  });

  // The checks above must be able to fail: the same functions on rows that are wrong.
  const repo: Repo = {
    read: (path) =>
      ({
        'bench/good.ts': "import { median, reporter } from './lib.js';\nconst report = reporter('good');\n",
        'bench/silent.ts': "import { table } from './lib.js';\nconsole.log(table([]));\n",
        'bench/misnamed.ts': "import { reporter } from './lib.js';\nconst report = reporter('other');\n",
      })[path],
    npmScripts: { 'bench:good': 'tsx bench/good.ts', build: 'tsc' },
  };
  const row = (...cells: string[]): Row => ({ line: 1, cells });
  const ok = ['A thing', '< 1 ms (#4)', '0.5 ms', '2026-11-28', '`npx tsx bench/good.ts`', 'met'];
  const withCell = (i: number, value: string) => row(...ok.map((c, j) => (j === i ? value : c)));

  it('accepts good rows', () => {
    expect(rowProblems(row(...ok), repo)).toEqual([]);
    expect(rowProblems(withCell(4, '`npm run build && npm run bench:good`'), repo)).toEqual([]);
    expect(rowProblems(withCell(5, 'not met in the last run (met on a quiet machine)'), repo)).toEqual([]);
    expect(rowProblems(withCell(5, 'partly: grows with the sort'), repo)).toEqual([]);
    expect(
      rowProblems(
        row('B', '≤ 1.3× (#32)', 'not measured yet', '—', '`bench/new.ts` (to write)', 'not measured'),
        repo,
      ),
    ).toEqual([]);
  });

  it('refuses broken rows', () => {
    const bad = (r: Row, needle: string) =>
      expect(rowProblems(r, repo).join('\n'), JSON.stringify(r.cells)).toContain(needle);
    bad(row(...ok.slice(0, 5)), '5 cells instead of 6');
    bad(row(...ok, 'extra'), '7 cells instead of 6');
    bad(withCell(1, '< 1 ms'), 'names no issue');
    bad(withCell(3, '28/11/2026'), 'is not YYYY-MM-DD');
    bad(withCell(3, '—'), 'is not YYYY-MM-DD');
    bad(withCell(3, '2026-13-45'), 'not a real day');
    bad(withCell(5, 'done'), 'does not start with one of');
    bad(withCell(5, 'metric'), 'does not start with one of');
    bad(withCell(4, 'npx tsx bench/good.ts'), 'not written as `code`');
    bad(withCell(4, '`npx tsx bench/nope.ts`'), 'bench/nope.ts does not exist');
    bad(withCell(4, '`npm run bench:nope`'), 'npm script "bench:nope" is not in package.json');
    bad(withCell(4, '`npm run build`'), 'names no bench/ script');
    bad(withCell(4, '`npx tsx bench/silent.ts`'), 'bench/silent.ts does not print its results with --json');
    bad(
      withCell(4, '`npx tsx bench/misnamed.ts`'),
      'bench/misnamed.ts does not print its results with --json',
    );
    bad(
      withCell(4, '`bench/nope.ts` (to write)'),
      '"(to write)" in a row whose status is not "not measured"',
    );
  });

  it('refuses a page that does not open with the table', () => {
    const table = `| ${HEADER.join(' | ')} |\n|---|---|---|---|---|---|\n| ${ok.join(' | ')} |\n`;
    expect(targetsTable(`# B\n\nintro\n\n## Targets\n\n${table}\n## History\n`)).toHaveLength(1);
    expect(() => targetsTable(`# B\n\n## History\n\n## Targets\n\n${table}`)).toThrow(
      'first section must be',
    );
    expect(() => targetsTable(`# B\n\n${table}\n## Targets\n\n${table}`)).toThrow('a table comes before');
    expect(() => targetsTable('# B\n\n## Targets\n\ntext\n\n## History\n')).toThrow('has no table');
    expect(() => targetsTable(`# B\n\n## Targets\n\n${table.replace('| status |', '|')}`)).toThrow(
      "table's header",
    );
  });
});
