import { compileSelect } from '../src/hogql/compile.js';
import { loadParser } from '../src/hogql/parse.js';
await loadParser();
for (const m of ['disabled','person_id_no_override_properties_on_events','person_id_override_properties_on_events','person_id_override_properties_joined'] as const) {
  const c = compileSelect("SELECT person_id, person.properties.plan, count() FROM events WHERE person.properties.plan = 'pro' GROUP BY 1, 2", { teamId: 1, timezone: 'UTC', weekStartDay: 0, table: (t) => t, personsOnEventsMode: m });
  console.log(m, '\n', c.sql.replace(/ SETTINGS.*/, ''), '\n');
}
