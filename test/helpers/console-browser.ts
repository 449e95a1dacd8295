import type { Browser, Page } from 'playwright-core';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { launchChromium } from './chromium.js';
import { type Harness, startHarness } from './harness.js';

/** A served console, its owner's credentials and a browser: what every console browser test starts from. */
export interface ConsoleBrowser {
  h: Harness;
  /** The server's loopback URL. */
  base: string;
  browser: Browser;
  email: string;
  password: string;
  /** Logs `page` in through the login form, as a person would, and waits for the home page. */
  logIn(page: Page): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a harness whose bootstrap owner is `<name>-owner@example.com` with a password, serves it on
 * loopback and launches Chromium. Ingestion flushes every 2 ms so that captured events show at once.
 */
export async function startConsoleBrowser(
  name: string,
  env: Record<string, string> = {},
): Promise<ConsoleBrowser> {
  const email = `${name}-owner@example.com`;
  const password = 'correct horse battery';
  const h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2', ...env });
  try {
    await setPasswordByEmail(h.deps, email, password);
    const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    return {
      h,
      base,
      browser,
      email,
      password,
      async logIn(page) {
        await page.goto(`${base}/login`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(`${base}/`);
      },
      async close() {
        await browser.close();
        await h.close();
      },
    };
  } catch (e) {
    await h.close();
    throw e;
  }
}
