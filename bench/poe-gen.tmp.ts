import { openDataset } from './dataset.js';
const rows = Number(process.argv[2]);
const ds = await openDataset({ rows, dir: process.argv[3] });
const r = await ds.events.query(`SELECT count(), countIf(JSONExtractString(person_properties,'plan')='pro'), any(person_properties), any(person_created_at) FROM ${ds.events.table('events')}`);
console.log(JSON.stringify(r));
await ds.close();
