import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP sink on loopback; `answer` decides each reply. */
async function startSink(
  answer: (n: number) => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const a = answer(received.length);
      setTimeout(() => {
        res.writeHead(a.status, { 'content-type': 'text/plain' });
        res.end('ok');
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const sampleGlobals = {
  event: {
    uuid: '0190b9a0-0000-7000-8000-000000000001',
    event: 'upgraded',
    distinct_id: 'user-1',
    properties: { plan: 'scale', $current_url: 'https://example.com/billing' },
    timestamp: '2026-11-28T10:00:00.000Z',
  },
  person: { id: 'p-1', name: 'Ada', properties: { email: 'ada@example.com' } },
};

describe(`hog functions (${backend})`, () => {
  let h: Harness;
  let path: string;
  let sink: Awaited<ReturnType<typeof startSink>>;
  beforeAll(async () => {
    h = await startHarness({ BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true' });
    path = `/api/projects/${h.boot.project_id}/hog_functions/`;
    sink = await startSink();
  });
  afterAll(async () => {
    await sink?.close();
    await h?.close();
  });

  it('lists the shipped templates', async () => {
    const res = await h.request('GET', `/api/projects/${h.boot.project_id}/hog_function_templates/`);
    expect(res.statusCode, res.body).toBe(200);
    const ids = res.json().results.map((t: { id: string }) => t.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'template-webhook',
        'template-slack',
        'template-discord',
        'template-microsoft-teams',
        'template-json-post',
      ]),
    );
  });

  it('creates, reads, changes and soft-deletes a destination; secrets are write-only', async () => {
    const created = await h.request('POST', path, {
      body: {
        type: 'destination',
        name: 'Slack upgrades',
        template_id: 'template-slack',
        enabled: true,
        inputs: {
          webhook_url: { value: `${sink.url}/slack-secret-path` },
          text: { value: '{person.name} upgraded to {event.properties.plan}' },
        },
        filters: {
          events: [{ id: 'upgraded', type: 'events', name: 'upgraded' }],
          filter_test_accounts: false,
        },
        masking: { ttl: 3600, hash: '{person.id}', threshold: null },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const f = created.json();
    expect(f).toMatchObject({
      type: 'destination',
      template_id: 'template-slack',
      enabled: true,
      deleted: false,
    });
    expect(f.inputs.webhook_url).toEqual({ secret: true });
    expect(created.body).not.toContain('slack-secret-path');
    expect(f.inputs.text.value).toBe('{person.name} upgraded to {event.properties.plan}');
    expect(f.masking).toEqual({ ttl: 3600, hash: '{person.id}', threshold: null });

    // A change that sends the secret back as {secret: true} keeps the stored value.
    const changed = await h.request('PATCH', `${path}${f.id}/`, {
      body: {
        name: 'Renamed',
        inputs: { webhook_url: { secret: true }, text: { value: 'hi {event.event}' } },
      },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const inv = await h.request('POST', `${path}${f.id}/invocations/`, {
      body: { globals: sampleGlobals, mock_async_functions: false },
    });
    expect(inv.statusCode, inv.body).toBe(200);
    expect(inv.json().status).toBe('success');
    expect(inv.body).not.toContain('slack-secret-path');
    const got = sink.received.at(-1)!;
    expect(got.url).toBe('/slack-secret-path');
    expect(JSON.parse(got.body)).toEqual({
      text: 'hi upgraded',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: "*Ada* triggered event: 'upgraded'" } }],
    });

    const list = (await h.request('GET', path)).json();
    expect(list.count).toBe(1);
    expect(list.results[0].name).toBe('Renamed');
    expect((await h.request('DELETE', `${path}${f.id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${path}${f.id}/`)).statusCode).toBe(404);
    expect((await h.request('GET', path)).json().count).toBe(0);
  });

  it('renders webhook bodies in Hog and Liquid templating and sends them to the sink', async () => {
    const created = await h.request('POST', path, {
      body: {
        template_id: 'template-webhook',
        inputs: {
          url: { value: `${sink.url}/hook` },
          method: { value: 'POST' },
          body: {
            value: { event: '{event}', plan: '{event.properties.plan}', who: 'by {person.properties.email}' },
          },
          headers: { value: { 'Content-Type': 'application/json', 'X-Event': '{event.event}' } },
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const before = sink.received.length;
    const inv = await h.request('POST', `${path}${id}/invocations/`, {
      body: { globals: sampleGlobals, mock_async_functions: false },
    });
    expect(inv.json().status, inv.body).toBe('success');
    expect(sink.received.length).toBe(before + 1);
    const got = sink.received.at(-1)!;
    expect(got.headers['x-event']).toBe('upgraded');
    const body = JSON.parse(got.body);
    expect(body.plan).toBe('scale');
    expect(body.who).toBe('by ada@example.com');
    expect(body.event).toMatchObject({
      event: 'upgraded',
      distinct_id: 'user-1',
      properties: { plan: 'scale' },
    });

    const liquid = await h.request('POST', path, {
      body: {
        template_id: 'template-discord',
        inputs: {
          webhookUrl: { value: `${sink.url}/discord` },
          content: {
            value: '{{ person.name | upcase }} bought {{ event.properties.plan }}',
            templating: 'liquid',
          },
        },
      },
    });
    expect(liquid.statusCode, liquid.body).toBe(201);
    const mocked = await h.request('POST', `${path}${liquid.json().id}/invocations/`, {
      body: { globals: sampleGlobals },
    });
    expect(mocked.json().request).toMatchObject({ method: 'POST' });
    expect(JSON.parse(mocked.json().request.body)).toEqual({ content: 'ADA bought scale' });

    const teams = await h.request('POST', path, {
      body: {
        template_id: 'template-microsoft-teams',
        inputs: { webhookUrl: { value: `${sink.url}/teams` }, text: { value: 'x {event.event}' } },
      },
    });
    const teamsRun = await h.request('POST', `${path}${teams.json().id}/invocations/`, {
      body: { globals: sampleGlobals },
    });
    const card = JSON.parse(teamsRun.json().request.body);
    expect(card.type).toBe('message');
    expect(card.attachments[0].content.body[0]).toMatchObject({ type: 'TextBlock', text: 'x upgraded' });
  });

  it('invokes a draft configuration: unsaved under `new`, or a saved one with its stored secrets', async () => {
    // Unsaved: the form's configuration runs as it would be saved; nothing is stored.
    const count = (await h.request('GET', path)).json().count;
    const draft = await h.request('POST', `${path}new/invocations/`, {
      body: {
        configuration: {
          template_id: 'template-webhook',
          inputs: { url: { value: `${sink.url}/draft` }, body: { value: { e: '{event.event}' } } },
        },
        globals: sampleGlobals,
      },
    });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json().request).toMatchObject({ url: `${sink.url}/draft`, method: 'POST' });
    expect(JSON.parse(draft.json().request.body)).toEqual({ e: 'upgraded' });
    expect((await h.request('GET', path)).json().count).toBe(count);
    // A draft that would be refused on save is refused here, naming the input.
    const bad = await h.request('POST', `${path}new/invocations/`, {
      body: { configuration: { template_id: 'template-webhook', inputs: {} }, globals: sampleGlobals },
    });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json()).toMatchObject({ type: 'validation_error', attr: 'inputs__url' });
    const none = await h.request('POST', `${path}new/invocations/`, { body: { globals: sampleGlobals } });
    expect(none.statusCode, none.body).toBe(400);
    expect(none.json().attr).toBe('configuration');

    // Saved with a secret: a draft sending {secret: true} uses the stored value, which stays hidden.
    const saved = await h.request('POST', path, {
      body: {
        template_id: 'template-discord',
        inputs: { webhookUrl: { value: `${sink.url}/secret-draft-path` }, content: { value: 'old' } },
      },
    });
    const id = saved.json().id;
    const before = sink.received.length;
    const run = await h.request('POST', `${path}${id}/invocations/`, {
      body: {
        configuration: {
          template_id: 'template-discord',
          inputs: { webhookUrl: { secret: true }, content: { value: 'new {event.event}' } },
        },
        globals: sampleGlobals,
        mock_async_functions: false,
      },
    });
    expect(run.json().status, run.body).toBe('success');
    expect(run.body).not.toContain('secret-draft-path');
    expect(sink.received.length).toBe(before + 1);
    expect(sink.received.at(-1)).toMatchObject({ url: '/secret-draft-path' });
    expect(JSON.parse(sink.received.at(-1)!.body)).toEqual({ content: 'new upgraded' });
    // The draft was not saved.
    expect((await h.request('GET', `${path}${id}/`)).json().inputs.content).toEqual({
      value: 'old',
      templating: 'hog',
    });
    await h.request('DELETE', `${path}${id}/`);
  });

  it('a hostile Liquid template is cut off and logged', async () => {
    const created = await h.request('POST', path, {
      body: {
        template_id: 'template-discord',
        inputs: {
          webhookUrl: { value: `${sink.url}/d` },
          content: {
            value:
              '{% for a in (1..100000) %}{% for b in (1..100000) %}xxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}',
            templating: 'liquid',
          },
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const started = Date.now();
    const inv = await h.request('POST', `${path}${created.json().id}/invocations/`, {
      body: { globals: sampleGlobals },
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(inv.json().status).toBe('error');
    expect(inv.json().logs[0].message).toMatch(/Liquid/);
  });

  it('refuses bad templates, custom Hog, unknown templates and missing required inputs with 400', async () => {
    const bad = async (body: unknown) => {
      const res = await h.request('POST', path, { body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().type).toBe('validation_error');
      return res.json();
    };
    const discord = (content: unknown) => ({
      template_id: 'template-discord',
      inputs: { webhookUrl: { value: 'https://discord.example/x' }, content },
    });
    expect((await bad(discord({ value: '{{ unclosed', templating: 'liquid' }))).attr).toBe('inputs__content');
    expect((await bad(discord({ value: '{event.properties.x + 1}' }))).detail).toMatch(/only paths/);
    expect((await bad(discord({ value: '{run()}' }))).attr).toBe('inputs__content');
    expect((await bad(discord({ value: '{secret.x}' }))).detail).toMatch(/unknown name/);
    expect((await bad(discord({ value: 'open {event' }))).detail).toMatch(/Unclosed/);
    expect((await bad({ ...discord({ value: 'x' }), hog: 'fetch("https://evil")' })).detail).toBe(
      'custom Hog code is not supported yet; use a template',
    );
    expect((await bad({ hog: 'print(1)' })).detail).toBe(
      'custom Hog code is not supported yet; use a template',
    );
    expect((await bad({ template_id: 'template-nope' })).attr).toBe('template_id');
    expect((await bad({ template_id: 'template-discord', inputs: {} })).attr).toBe('inputs__webhookUrl');
    expect((await bad({ ...discord({ value: 'x' }), type: 'site_app' })).attr).toBe('type');
    expect((await bad({ ...discord({ value: 'x' }), masking: { ttl: 1, hash: '{person.id}' } })).attr).toBe(
      'masking',
    );
  });

  it("another project's destination is a 404", async () => {
    const other = await h.owner('Other');
    const res = await h.request('POST', `/api/projects/${other.projectId}/hog_functions/`, {
      key: other.key,
      body: {
        template_id: 'template-discord',
        inputs: { webhookUrl: { value: 'https://discord.example/x' }, content: { value: 'x' } },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id;
    expect((await h.request('GET', `${path}${id}/`)).statusCode).toBe(404);
    expect((await h.request('PATCH', `${path}${id}/`, { body: { name: 'x' } })).statusCode).toBe(404);
    expect((await h.request('POST', `${path}${id}/invocations/`, { body: {} })).statusCode).toBe(404);
    expect((await h.request('DELETE', `${path}${id}/`)).statusCode).toBe(404);
  });
});

describe(`hog functions without private networks (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses to send to a loopback address', async () => {
    const sink = await startSink();
    try {
      const path = `/api/projects/${h.boot.project_id}/hog_functions/`;
      const created = await h.request('POST', path, {
        body: {
          template_id: 'template-discord',
          inputs: { webhookUrl: { value: `${sink.url}/d` }, content: { value: 'x' } },
        },
      });
      const inv = await h.request('POST', `${path}${created.json().id}/invocations/`, {
        body: { globals: sampleGlobals, mock_async_functions: false },
      });
      expect(inv.json().status).toBe('error');
      expect(inv.json().logs.at(-1).message).toMatch(/private network/);
      expect(sink.received).toHaveLength(0);
    } finally {
      await sink.close();
    }
  });
});
