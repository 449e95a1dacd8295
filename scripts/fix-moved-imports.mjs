// One-off for merging branches written before issue 20's moves: rewrites relative imports that
// point at a moved file (old path) to its new place, in every tracked .ts/.mjs file, and prints
// what it changed. Run from the repository root after a merge: `node scripts/fix-moved-imports.mjs`.
// Safe to run twice; delete once every branch is merged.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const MOVES = readFileSync(new URL('./moved-paths.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => l.trim().split(/\s+/));
const moved = new Map(MOVES.map(([from, to]) => [from.replace(/\.ts$/, ''), to.replace(/\.ts$/, '')]));

const files = execSync('git ls-files "*.ts" "*.mjs"', { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(f));
const spec = /((?:from|import|mock|importActual)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const out = text.replace(spec, (whole, pre, quote, target) => {
    const abs = path.normalize(path.join(path.dirname(file), target)).replace(/\.js$/, '');
    const to = moved.get(abs);
    if (!to || existsSync(`${abs}.ts`)) return whole;
    let rel = path.relative(path.dirname(file), to);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    console.log(`${file}: ${target} -> ${rel}.js`);
    return `${pre}${quote}${rel}.js${quote}`;
  });
  if (out !== text) writeFileSync(file, out);
}
