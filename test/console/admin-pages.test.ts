import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-admin: skipped, no Chromium at ${CHROMIUM}`);

/** Screenshots for people to look at (outside the repository); nothing compares pixels. */
const SHOTS = process.env.BURROW_SHOTS_DIR ?? join(process.cwd(), '.tmp', 'screenshots', 'admin');

/**
 * The console's admin pages as a person uses them: members and invites without a mail server,
 * keys on a phone, batch exports that keep what was typed, people, cohorts and flags, lost
 * sessions, unknown addresses and the keyboard. Built console (`npm run build`), real server.
 */
describe.skipIf(!hasChromium)(`console admin pages in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'admin-pages@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // No SMTP_URL: invites cannot be mailed. A low login limit, to see successes do not count.
    h = await startHarness({
      BURROW_ADMIN_EMAIL: email,
      INGEST_BATCH_DELAY_MS: '2',
      LOGIN_MAX_ATTEMPTS: '3',
    });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function logIn(page: Page, as = email, secret = password) {
    await page.getByLabel('Email').fill(as);
    await page.getByLabel('Password').fill(secret);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  async function newPage(width = 1280, colorScheme: 'light' | 'dark' = 'light') {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
    return { context, page: await context.newPage() };
  }

  async function signedIn(width = 1280, colorScheme: 'light' | 'dark' = 'light') {
    const { context, page } = await newPage(width, colorScheme);
    await page.goto(`${base}/login`);
    await logIn(page);
    await page.waitForURL(`${base}/`);
    return { context, page };
  }

  /** Each page touched, at 1280 and 390 px, light and dark. */
  async function shots(name: string, path: string, ready: (page: Page) => Promise<unknown>) {
    for (const width of [1280, 390])
      for (const scheme of ['light', 'dark'] as const) {
        const { context, page } = await signedIn(width, scheme);
        await page.goto(`${base}${path}`);
        await ready(page);
        await page.screenshot({ path: join(SHOTS, `${name}-${width}-${scheme}.png`), fullPage: true });
        await context.close();
      }
  }

  async function capture(batch: object[]) {
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
  }

  it('logs in more times than the limit allows failures, answers unknown pages with Not found, and returns to the page clicked', async () => {
    const { context, page } = await newPage();
    // Four good logins in a row with a limit of three attempts: successes are not counted.
    for (let i = 0; i < 4; i++) {
      await page.goto(`${base}/login`);
      await logIn(page);
      await page.waitForURL(`${base}/`);
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/\/login/);
    }
    await context.close();

    // An unknown address opened in the browser: the console's page, not raw JSON; a 404 all the same.
    const { context: second, page: other } = await signedIn();
    const res = await other.goto(`${base}/no-such-page`);
    expect(res?.status()).toBe(404);
    await expect.poll(() => other.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    await other.getByRole('link', { name: 'Go to Home' }).click();
    await other.waitForURL(`${base}/`);
    // An unknown page inside the console is the same page.
    await other.goto(`${base}/people/x/y/z`);
    await expect.poll(() => other.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');

    // The session ends while the person moves around; they come back to the page they clicked.
    await other.getByRole('link', { name: 'People' }).click();
    await other.waitForURL(`${base}/people`);
    await other.getByRole('link', { name: 'Settings' }).click();
    await other.waitForURL(`${base}/settings`);
    await second.clearCookies();
    await other.getByRole('link', { name: 'Cohorts' }).click();
    await other.waitForURL(/\/login\?next=%2Fcohorts$/);
    await logIn(other);
    await other.waitForURL(`${base}/cohorts`);
    await second.close();
  }, 120_000);

  it('invites without mail (the link to copy), changes a level and removes a member; keys fit a phone', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('Email').fill('teammate@example.com');
    await page.getByRole('button', { name: 'Send invite' }).click();
    const status = page.getByRole('status');
    await expect.poll(() => status.textContent()).toContain('No email was sent');
    expect(await status.textContent()).toContain('no mail server configured');
    expect(await status.textContent()).not.toContain('Invite sent');
    const link = await page.getByLabel('Invite link for teammate@example.com').inputValue();
    expect(link).toMatch(new RegExp(`^${base}/signup/[0-9a-f-]+#token=`));
    await expect
      .poll(() => page.locator('table.simple').last().textContent())
      .toContain('pending, link not emailed');
    await page.screenshot({ path: join(SHOTS, 'members-invite-link.png'), fullPage: true });

    // The invitee opens the copied link in their own browser and joins.
    const { context: invitee, page: joining } = await newPage(390);
    await joining.goto(link);
    await joining.getByLabel('Your name').fill('Tea Mate');
    await joining.getByLabel('Password').fill('a good long password');
    await joining.getByRole('button', { name: 'Create account' }).click();
    await joining.waitForURL(`${base}/`);
    await invitee.close();

    // The owner makes them an admin, then removes them.
    await page.reload();
    const level = page.getByLabel('Level of teammate@example.com');
    await expect.poll(() => level.inputValue()).toBe('1');
    await level.selectOption('8');
    await expect
      .poll(async () => {
        const members = await h.request('GET', `/api/organizations/${h.boot.organization_id}/members/`);
        return members
          .json()
          .results.find((m: { user: { email: string } }) => m.user.email === 'teammate@example.com')?.level;
      })
      .toBe(8);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Remove teammate@example.com' }).click();
    await expect.poll(() => page.getByText('teammate@example.com').count()).toBe(0);
    // Nobody may change their own level or remove themselves here.
    expect(await page.getByLabel(`Level of ${email}`).count()).toBe(0);
    await context.close();

    // At 390 px the keys table is a list of cards: the Revoke button is on the screen.
    const { context: phone, page: narrow } = await signedIn(390);
    await narrow.goto(`${base}/settings/keys`);
    await narrow.getByLabel('Label').fill('phone key');
    await narrow.getByRole('button', { name: 'Create key' }).click();
    const revoke = narrow.getByRole('button', { name: 'Revoke phone key' });
    await expect.poll(() => revoke.count()).toBe(1);
    const box = await revoke.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await narrow.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await phone.close();

    await shots('settings-members', '/settings/members', (p) =>
      p.getByRole('heading', { name: /Members of/ }).waitFor(),
    );
    await shots('settings-keys', '/settings/keys', (p) =>
      p.getByRole('button', { name: 'Revoke phone key' }).waitFor(),
    );
  }, 180_000);

  it('keeps the batch export settings typed when the server refuses them', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/settings/exports`);
    await page.getByLabel('Name', { exact: true }).fill('To the other Burrow');
    const typed = JSON.stringify({ url: 'not a url', token: 'phc_my_secret_token' });
    const config = page.getByLabel(/Destination settings/);
    await config.fill(typed);
    await page.getByRole('button', { name: 'Create export' }).click();
    await expect.poll(() => page.getByRole('alert').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await config.inputValue()).toBe(typed);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('To the other Burrow');
    // Not JSON at all: said so, and still kept.
    await config.fill('{"url": ');
    await page.getByRole('button', { name: 'Create export' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid JSON');
    expect(await config.inputValue()).toBe('{"url": ');
    await context.close();
    await shots('settings-exports', '/settings/exports', (p) =>
      p.getByRole('button', { name: 'Create export' }).waitFor(),
    );
  }, 120_000);

  it('finds people by a property, shows when they were last seen, and deletes one with their events', async () => {
    const now = Date.now();
    await capture([
      ...['ann', 'bob', 'cy'].map((who, i) => ({
        event: '$pageview',
        distinct_id: who,
        timestamp: new Date(now - (i + 1) * 3_600_000).toISOString(),
        properties: { $set: { plan: who === 'cy' ? 'free' : 'pro', email: `${who}@shop.example` } },
      })),
    ]);
    const persons = async () =>
      (await h.request('GET', `/api/projects/${h.boot.project_id}/persons/?limit=100`)).json().results.length;
    await expect.poll(persons, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);

    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByLabel('Property').fill('plan');
    await page.getByLabel('Value').fill('pro');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('table.simple tbody tr');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    await expect
      .poll(() => rows.allTextContents(), { timeout: 20_000 })
      .toEqual([
        expect.stringMatching(/ann@shop\.example.*1 hour ago/),
        expect.stringMatching(/bob@shop\.example.*2 hours ago/),
      ]);
    await page.getByLabel('Operator').selectOption('is_not');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => rows.allTextContents(), { timeout: 20_000 })
      .toEqual([expect.stringContaining('cy@shop.example')]);

    await page.getByRole('link', { name: 'cy@shop.example' }).click();
    await expect.poll(() => page.getByText(/Last seen 3 hours ago/).count(), { timeout: 20_000 }).toBe(1);
    await page.getByLabel('Also delete their events').check();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete person' }).click();
    await page.waitForURL(`${base}/people`);
    await expect
      .poll(
        async () =>
          (await h.request('GET', `/api/projects/${h.boot.project_id}/persons/?distinct_id=cy`)).json()
            .results,
      )
      .toEqual([]);
    await context.close();
    await shots('people', '/people', (p) => p.getByText('1 hour ago').waitFor({ timeout: 20_000 }));
  }, 180_000);

  it('lists a cohort’s members, targets a flag at it with a payload, shows the flag’s usage and deletes it', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'Cohorts' }).click();
    await page.getByLabel('Name').fill('Pro customers');
    await page.getByRole('textbox', { name: 'Property' }).fill('plan');
    await page.getByLabel('equals').fill('pro');
    await page.getByRole('button', { name: 'Create cohort' }).click();
    await expect
      .poll(() => page.locator('table.simple tbody tr').first().textContent(), { timeout: 30_000 })
      .toMatch(/Pro customers.*dynamic.*2/);
    await page.getByRole('link', { name: 'Pro customers' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Pro customers');
    await expect
      .poll(() => page.locator('table.simple tbody tr').allTextContents(), { timeout: 20_000 })
      .toEqual([expect.stringContaining('@shop.example'), expect.stringContaining('@shop.example')]);
    const cohortPath = new URL(page.url()).pathname;

    // A flag for that cohort, with a payload.
    await page.getByRole('link', { name: 'Feature flags' }).click();
    await page.getByLabel('Key').fill('pro-banner');
    await page.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('link', { name: 'pro-banner' }).click();
    await page.getByRole('button', { name: '+ Cohort' }).click();
    await expect.poll(() => page.getByLabel('In cohort').inputValue()).not.toBe('');
    await page.getByLabel('Payload for true').fill('{"text": "Thanks for being pro"}');
    await page.getByRole('button', { name: 'Save flag' }).click();
    await expect
      .poll(() => page.getByRole('status').allTextContents())
      .toContainEqual(expect.stringContaining('Saved'));
    const flags = async (distinct_id: string) =>
      (
        await h.app.inject({
          method: 'POST',
          url: '/flags/?v=2',
          payload: { token: h.boot.project_api_key, distinct_id },
        })
      ).json().flags['pro-banner'];
    expect(await flags('ann')).toMatchObject({
      enabled: true,
      metadata: { payload: '{"text": "Thanks for being pro"}' },
    });
    expect((await flags('someone-else')).enabled).toBe(false);
    // Reloaded, the editor shows what was saved.
    await page.reload();
    await expect
      .poll(() => page.getByLabel('Payload for true').inputValue())
      // As typed: PostHog's UI keeps payloads as JSON text, and so does the editor.
      .toBe('{"text": "Thanks for being pro"}');
    await expect
      .poll(() => page.getByLabel('In cohort').locator('option:checked').textContent())
      .toBe('Pro customers');

    // Usage: how often SDKs reported reading it.
    await capture(
      Array.from({ length: 5 }, (_, i) => ({
        event: '$feature_flag_called',
        distinct_id: i < 3 ? 'ann' : 'bob',
        properties: { $feature_flag: 'pro-banner', $feature_flag_response: i < 4 },
      })),
    );
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByText(/Called \d+ time/).waitFor({ timeout: 10_000 });
          return page.getByText(/Called \d+ time/).textContent();
        },
        { timeout: 30_000 },
      )
      .toContain('Called 5 times');
    await page.screenshot({ path: join(SHOTS, 'flag-usage.png'), fullPage: true });
    const flagPath = new URL(page.url()).pathname;
    await shots('flag', flagPath, (p) => p.getByText('Called 5 times').waitFor({ timeout: 20_000 }));

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete flag' }).click();
    await page.waitForURL(`${base}/feature_flags`);
    await expect.poll(() => page.getByText('pro-banner').count()).toBe(0);
    await context.close();
    await shots('cohort', cohortPath, (p) =>
      p.getByText('@shop.example').first().waitFor({ timeout: 20_000 }),
    );
    await shots('cohorts', '/cohorts', (p) => p.getByText('Pro customers').waitFor());
    expect(flagPath).toMatch(/^\/feature_flags\/\d+$/);
  }, 240_000);

  it('works from the keyboard: arrow keys between tabs, Escape closes the menu, focus on the new heading', async () => {
    const { context, page } = await signedIn(390);
    await page.goto(`${base}/settings/project`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    // The narrow menu: open with the button, close with Escape (focus back on the button).
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Menu');

    // Arrow keys walk the section tabs; Enter opens one; focus lands on the page's heading.
    await page.getByRole('link', { name: 'Project', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Data');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Account');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/settings/members`);
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1');

    // From the main menu to a lazily loaded page: its own heading gets the focus.
    await menu.click();
    await page.getByRole('link', { name: 'Feature flags' }).click();
    await page.waitForURL(`${base}/feature_flags`);
    await expect
      .poll(() =>
        page.evaluate("document.activeElement?.tagName + ' ' + document.activeElement?.textContent"),
      )
      .toBe('H1 Feature flags');
    await context.close();
  }, 120_000);

  it('shows the Not found page at both widths and in both themes', async () => {
    await shots('not-found', '/nope', (p) => p.getByRole('heading', { name: 'Page not found' }).waitFor());
    await shots('flags', '/feature_flags', (p) =>
      p.getByRole('heading', { name: 'Feature flags' }).waitFor(),
    );
  }, 120_000);

  // Last: it uses up this client's allowance. Every test above logged in many times from this
  // address with a limit of three, which works only because successful logins are not counted.
  it('counts failed logins only: three wrong passwords, then even the right one waits', async () => {
    const { context, page } = await newPage();
    await page.goto(`${base}/login`);
    for (let i = 0; i < 3; i++) {
      await logIn(page, email, 'wrong password');
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid email or password');
      await page.getByRole('button', { name: 'Log in' }).isEnabled();
    }
    await logIn(page);
    await expect.poll(() => page.getByText('Too many attempts').count()).toBe(1);
    expect(page.url()).toContain('/login');
    await context.close();
  }, 60_000);
});
