// `npm start`: the server, rebuilt first only when a source is newer than dist/. One Node process:
// the staleness check used to be npm's `prestart`, which cost a second npm script and Node start.
import { ensureBuilt } from './ensure-built.mjs';

ensureBuilt();
await import('../dist/main.js');
