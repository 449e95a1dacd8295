import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENIED, denied, ISO, NOT_FOUND, UUID } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { expectReply, invalid, organization } from '../helpers/org-access.js';

const FIELDS = [
  'created_at',
  'created_by',
  'emailing_attempt_made',
  'first_name',
  'id',
  'is_expired',
  'level',
  'message',
  'private_project_access',
  'target_email',
  'updated_at',
];
const DAY = 86_400_000;
let seq = 0;
const email = (stem = 'invitee') => `${stem}${seq++}@Example.COM`;

describe(`organization invites (${backend})`, () => {
  let h: Harness;
  let offset = 0;
  let org: Awaited<ReturnType<typeof organization>>;

  beforeAll(async () => {
    h = await startHarness({}, { now: () => new Date(Date.now() + offset) });
    org = await organization(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const invite = (body: unknown, key = org.owner.key, base = org.base) =>
    h.request('POST', `${base}/invites/`, { key, body });
  const list = async (base = org.base, key = org.member.key) =>
    (await h.request('GET', `${base}/invites/`, { key })).json();

  it('creates an invite with PostHog defaults; without SMTP no email is attempted', async () => {
    const target = email();
    const res = await invite({ target_email: target, first_name: 'Ada', send_email: true });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    // Nothing was mailed, so the inviter gets the link (with its token) to hand over, once.
    expect(Object.keys(body).sort()).toEqual([...FIELDS, 'invite_url'].sort());
    expect(body).toMatchObject({
      target_email: target.replace('Example.COM', 'example.com'),
      first_name: 'Ada',
      level: 1,
      message: null,
      is_expired: false,
      emailing_attempt_made: false,
      private_project_access: [],
    });
    expect(body.id).toMatch(UUID);
    expect(body.created_at).toMatch(ISO);
    expect(body.created_by).toMatchObject({ id: org.owner.user.id, email: org.owner.user.email });
    const { invite_url, ...stored } = body;
    const listed = await list();
    expect(listed.results.find((i: { id: string }) => i.id === body.id)).toEqual(stored);

    // The link is the way in: its token signs the invitee up through the API.
    const url = new URL(invite_url);
    expect(url.pathname).toBe(`/signup/${body.id}`);
    const token = new URLSearchParams(url.hash.slice(1)).get('token');
    const signup = await h.request('POST', `/api/signup/${body.id}/`, {
      key: null,
      body: { token, first_name: 'Ada', password: 'analytical engine' },
    });
    expect(signup.statusCode).toBe(201);
  });

  it('gives the validation messages of PostHog', async () => {
    const cases: Array<[unknown, object]> = [
      [{}, invalid('This field is required.', 'target_email', 'required')],
      [{ target_email: null }, invalid('This field may not be null.', 'target_email', 'null')],
      [{ target_email: 'not-an-email' }, invalid('Enter a valid email address.', 'target_email')],
      [
        { target_email: email(), level: 5 },
        invalid('"5" is not a valid choice. Choose one of: 1, 8, 15.', 'level', 'invalid_choice'),
      ],
      [{ target_email: email(), level: '8' }, invalid('A valid integer is required.', 'level')],
      [
        { target_email: email(), first_name: 'x'.repeat(31) },
        invalid('Ensure this field has no more than 30 characters.', 'first_name', 'max_length'),
      ],
      [{ target_email: email(), send_email: 'yes' }, invalid('Must be a valid boolean.', 'send_email')],
    ];
    const ppa = (value: unknown, detail: string) =>
      [
        { target_email: email(), private_project_access: value },
        invalid(detail, 'private_project_access'),
      ] as [unknown, object];
    cases.push(
      ppa({ id: 1 }, 'The field must be a list of dictionaries.'),
      ppa([1], 'Each item in the list must be a dictionary.'),
      ppa([{ id: org.owner.projectId }], 'Each dictionary must contain "id" and "level" keys.'),
      ppa([{ id: 'x', level: 'member' }], 'The "id" field must be an integer.'),
      ppa([{ id: org.owner.projectId, level: 'boss' }], 'The "level" field must be a valid access level.'),
      ppa(
        [{ id: h.boot.project_id, level: 'member' }],
        'Project does not exist on this organization, or it is private and you do not have access to it.',
      ),
    );
    for (const [body, error] of cases) expectReply(await invite(body), 400, error);
  });

  it('grants project access to projects of the organization', async () => {
    const res = await invite({
      target_email: email(),
      private_project_access: [{ id: org.owner.projectId, level: 'admin' }],
    });
    expect(res.json().private_project_access).toEqual([{ id: org.owner.projectId, level: 'admin' }]);
    expect(
      (await invite({ target_email: email(), private_project_access: null })).json().private_project_access,
    ).toEqual([]);
  });

  it.each([
    ['member', 'member', 1, 201],
    ['member', 'admin', 8, 403],
    ['admin', 'admin', 8, 201],
    ['admin', 'owner', 15, 403],
    ['owner', 'owner', 15, 201],
  ] as const)('a %s inviting an %s gets %i', async (inviter, _, level, status) => {
    const res = await invite({ target_email: email(), level }, org[inviter].key);
    if (status === 403) {
      expectReply(res, 403, denied('You cannot invite a user with a higher permission level than your own.'));
    } else {
      expect(res.statusCode).toBe(201);
      expect(res.json().level).toBe(level);
    }
  });

  it('refuses to invite a member, and replaces older invites of the same address', async () => {
    expectReply(
      await invite({ target_email: org.member.user.email }),
      400,
      invalid('A user with this email address already belongs to the organization.'),
    );
    const target = email('twice');
    const first = (await invite({ target_email: target, level: 8 })).json();
    // The same address whatever its case.
    const second = (await invite({ target_email: target.toUpperCase() })).json();
    const mine = (await list()).results.filter(
      (i: { target_email: string }) => i.target_email.toLowerCase() === target.toLowerCase(),
    );
    expect(mine.map((i: { id: string }) => i.id)).toEqual([second.id]);
    expect(second.level).toBe(1);
    expect(first.id).not.toBe(second.id);
  });

  it('combines unexpired pending invites when asked: highest level, union of projects', async () => {
    const fresh = await organization(h);
    const projects = await h.request('POST', `${fresh.base}/projects/`, {
      key: fresh.owner.key,
      body: { name: 'Second' },
    });
    const second = projects.json().id as number;
    const first = fresh.owner.projectId;
    const target = email('combine');
    const send = (body: object) => invite({ target_email: target, ...body }, fresh.owner.key, fresh.base);
    await send({ level: 8, private_project_access: [{ id: first, level: 'member' }] });
    const combined = await send({
      level: 1,
      combine_pending_invites: true,
      private_project_access: [
        { id: second, level: 'member' },
        { id: first, level: 'admin' },
      ],
    });
    expect(combined.json()).toMatchObject({
      level: 8,
      private_project_access: [
        { id: second, level: 'member' },
        { id: first, level: 'admin' },
      ],
    });
    await send({ combine_pending_invites: true, private_project_access: [{ id: first, level: 'member' }] });
    const merged = (await list(fresh.base, fresh.member.key)).results;
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({
      level: 8,
      private_project_access: [
        { id: first, level: 'admin' },
        { id: second, level: 'member' },
      ],
    });
    // Three days later the invite is expired: it is listed as such and no longer combined.
    offset = 3 * DAY + 60_000;
    try {
      expect((await list(fresh.base, fresh.member.key)).results[0].is_expired).toBe(true);
      const late = await send({ combine_pending_invites: true });
      expect(late.json()).toMatchObject({ level: 1, private_project_access: [], is_expired: false });
      expect((await list(fresh.base, fresh.member.key)).count).toBe(1);
    } finally {
      offset = 0;
    }
  });

  it('lists newest first (so unexpired before expired), paged', async () => {
    const fresh = await organization(h);
    const made: string[] = [];
    for (const days of [4, 2, 0]) {
      offset = -days * DAY;
      made.push((await invite({ target_email: email('page') }, fresh.owner.key, fresh.base)).json().id);
    }
    offset = 0;
    const url = `${fresh.base}/invites/`;
    const page = (await h.request('GET', `${url}?limit=2`, { key: fresh.member.key })).json();
    expect(page.count).toBe(3);
    expect(page.results.map((i: { id: string }) => i.id)).toEqual([made[2], made[1]]);
    expect(page.results.map((i: { is_expired: boolean }) => i.is_expired)).toEqual([false, false]);
    expect(page.next).toBe(`http://localhost${url}?limit=2&offset=2`);
    const rest = (await h.request('GET', `${url}?limit=2&offset=2`, { key: fresh.member.key })).json();
    expect(rest.results.map((i: { id: string; is_expired: boolean }) => [i.id, i.is_expired])).toEqual([
      [made[0], true],
    ]);
    expectReply(
      await h.request('GET', `${url}?limit=0`, { key: fresh.member.key }),
      400,
      invalid('Ensure this value is greater than or equal to 1.', 'limit', 'min_value'),
    );
  });

  it('lets any member withdraw an invite (204), 404 for unknown ids, 403 in other organizations', async () => {
    const made = (await invite({ target_email: email() })).json();
    const url = `${org.base}/invites/${made.id}/`;
    const res = await h.request('DELETE', url, { key: org.member.key });
    expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
    expectReply(await h.request('DELETE', url, { key: org.member.key }), 404, NOT_FOUND);
    expectReply(
      await h.request('DELETE', `${org.base}/invites/nope/`, { key: org.member.key }),
      404,
      NOT_FOUND,
    );
    const other = await h.owner('Other');
    const otherBase = `/api/organizations/${other.organizationId}`;
    const theirs = (await invite({ target_email: email() }, other.key, otherBase)).json();
    expectReply(
      await h.request('DELETE', `${org.base}/invites/${theirs.id}/`, { key: org.owner.key }),
      404,
      NOT_FOUND,
    );
    expectReply(
      await h.request('DELETE', `${otherBase}/invites/${theirs.id}/`, { key: org.owner.key }),
      403,
      DENIED,
    );
    expectReply(await h.request('GET', `${otherBase}/invites/`, { key: org.owner.key }), 403, DENIED);
    expectReply(await invite({ target_email: email() }, org.owner.key, otherBase), 403, DENIED);
    expect((await list(otherBase, other.key)).count).toBe(1);
  });

  it('needs organization_member scopes', async () => {
    const reader = await h.user({
      organizationId: org.orgId,
      key: { scopes: ['organization_member:read'] },
    });
    expect((await h.request('GET', `${org.base}/invites/`, { key: reader.key })).statusCode).toBe(200);
    const missing = denied("API key missing required scope 'organization_member:write'");
    expectReply(await invite({ target_email: email() }, reader.key), 403, missing);
    expectReply(
      await h.request('POST', `${org.base}/invites/bulk/`, { key: reader.key, body: [] }),
      403,
      missing,
    );
    const orgOnly = await h.user({ organizationId: org.orgId, key: { scopes: ['organization:write'] } });
    expectReply(
      await h.request('GET', `${org.base}/invites/`, { key: orgOnly.key }),
      403,
      denied("API key missing required scope 'organization_member:read'"),
    );
    expect((await h.request('GET', `${org.base}/invites/`, { key: null })).statusCode).toBe(401);
  });

  describe('bulk', () => {
    // Sent as JSON text, so that a bare string or number is JSON too.
    const bulk = (body: unknown, key = org.owner.key) =>
      h.request('POST', `${org.base}/invites/bulk/`, {
        key,
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });

    it('creates every invite of an array (201 with the invites), a single object as a list of one', async () => {
      const targets = [email('bulk'), email('bulk')];
      const res = await bulk(targets.map((target_email, i) => ({ target_email, level: i === 0 ? 8 : 1 })));
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body.map((i: { level: number }) => i.level)).toEqual([8, 1]);
      expect(Object.keys(body[0]).sort()).toEqual([...FIELDS, 'invite_url'].sort());
      const one = await bulk({ target_email: email('single') });
      expect(one.statusCode).toBe(201);
      expect(one.json()).toHaveLength(1);
      expectReply(await bulk([]), 201, []);
    });

    it('is all or nothing', async () => {
      const before = (await list()).count;
      const good = email('atomic');
      expectReply(
        await bulk([{ target_email: good }, { target_email: 'broken' }]),
        400,
        invalid('Enter a valid email address.', '1__target_email'),
      );
      expectReply(
        await bulk([{ target_email: good }, { target_email: email(), level: 15 }], org.admin.key),
        403,
        denied('You cannot invite a user with a higher permission level than your own.'),
      );
      expectReply(
        await bulk([{ target_email: good }, { target_email: org.member.user.email }]),
        400,
        invalid('A user with this email address already belongs to the organization.'),
      );
      expectReply(
        await bulk([{ target_email: good }, { target_email: email(), private_project_access: 'x' }]),
        400,
        invalid('The field must be a list of dictionaries.', '1__private_project_access'),
      );
      expectReply(
        await bulk([{ target_email: good }, { target_email: good.toLowerCase() }]),
        400,
        invalid('This email address appears more than once in the request.', '1__target_email'),
      );
      expect((await list()).count).toBe(before);
    });

    it('takes at most 20 invites and nothing but objects', async () => {
      const many = Array.from({ length: 21 }, () => ({ target_email: email('many') }));
      expectReply(
        await bulk(many),
        400,
        invalid('A maximum of 20 invites can be sent in a single request.', null, 'max_length'),
      );
      const needsArray = invalid('This endpoint needs an array of data for bulk invite creation.');
      expectReply(await bulk('text'), 400, needsArray);
      expectReply(await bulk(5), 400, needsArray);
      expectReply(
        await bulk([5]),
        400,
        invalid('Expected a dictionary of items but got type "int".', '0', 'not_a_dict'),
      );
      expect((await bulk(many.slice(0, 20))).json()).toHaveLength(20);
    });
  });
});
