/** A person's or an event's properties as a two-column table, keys sorted, `$` ones last. */
export function PropertyTable({ properties }: { properties: Record<string, unknown> }) {
  const keys = Object.keys(properties).sort(
    (a, b) => Number(a.startsWith('$')) - Number(b.startsWith('$')) || a.localeCompare(b),
  );
  if (keys.length === 0) return <p class="muted">No properties.</p>;
  return (
    <div class="table-scroll">
      <table class="simple properties">
        <tbody>
          {keys.map((k) => {
            const v = properties[k];
            return (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td>{typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
