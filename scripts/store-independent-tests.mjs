// Lists the test files that never reach the metadata store, the cache or the bus: they import none
// of the modules that open them and read neither DATABASE_URL nor REDIS_URL. CI's second phase
// (PostgreSQL + Redis) skips them, since they would only repeat the embedded phase word for word.
// A file that opens a store some other way is listed wrongly and still runs in the first phase.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REACHES_A_STORE =
  /DATABASE_URL|REDIS_URL|helpers\/(harness|deletions|cohorts|process|personless|persons-on-events|recordings|org-access)|src\/(server|store)\/|dist\/main|createApp|buildApp/;

function* testFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(path);
    else if (entry.name.endsWith('.test.ts')) yield path;
  }
}

for (const file of testFiles('test')) {
  if (!REACHES_A_STORE.test(readFileSync(file, 'utf8'))) console.log(file);
}
