import { useEffect, useRef } from 'preact/hooks';

/**
 * Arrow keys move between the items of a tab row (`role="tablist"`, or a section nav marked
 * `data-arrow-nav`), as the ARIA tabs pattern asks; Home and End go to the ends. Tabs are
 * activated on focus (clicked), links only focused (Enter follows them), so a page is not loaded
 * for each key press. One listener on the document covers every page's tabs, lazy ones included.
 */
export function moveBetweenTabs(event: KeyboardEvent): boolean {
  const keys = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'];
  if (!keys.includes(event.key) || event.altKey || event.ctrlKey || event.metaKey) return false;
  const target = event.target as HTMLElement | null;
  const row = target?.closest<HTMLElement>('[role="tablist"], [data-arrow-nav]');
  if (!target || !row) return false;
  const items = [...row.querySelectorAll<HTMLElement>('[role="tab"], a[href]')].filter(
    (el) => !(el as HTMLButtonElement).disabled,
  );
  const at = items.indexOf(target);
  if (at < 0) return false;
  const step = event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? -1 : 1;
  const next =
    event.key === 'Home'
      ? items[0]
      : event.key === 'End'
        ? items[items.length - 1]
        : items[(at + step + items.length) % items.length];
  if (!next) return false;
  event.preventDefault();
  next.focus();
  if (next.getAttribute('role') === 'tab') next.click();
  return true;
}

/** Escape closes whatever menu is open: open `<details>` menus here; the shell's own menu besides. */
export function closeMenus(event: KeyboardEvent): boolean {
  if (event.key !== 'Escape') return false;
  const open = [...document.querySelectorAll<HTMLDetailsElement>('details[open]')].filter(
    (d) => d.contains(event.target as Node) || d.dataset.menu !== undefined,
  );
  for (const details of open) {
    details.open = false;
    details.querySelector<HTMLElement>('summary')?.focus();
  }
  return open.length > 0;
}

/**
 * After a navigation inside the app, focus moves to the new page's heading, so a screen reader
 * announces it and Tab continues from the page's top rather than from the link clicked. Pages load
 * lazily (the old one stays until the new one is ready), so the heading is watched for a moment
 * and a newer one takes the focus as long as the person has not moved it meanwhile. Left alone:
 * the first page of a visit (the browser starts at the top), and a page rewriting its own address
 * while someone works in one of its fields or buttons (an editor keeping its state in the URL).
 */
export function useFocusHeadingOnNavigate(path: string) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById('main');
    if (!main) return;
    const active = document.activeElement as HTMLElement | null;
    if (
      active &&
      main.contains(active) &&
      active.matches('input, select, textarea, button, [contenteditable]')
    )
      return;
    let focused: HTMLElement | null = null;
    const focus = () => {
      const heading = main.querySelector<HTMLElement>('h1');
      if (!heading || heading === focused) return;
      const now = document.activeElement;
      if (focused && now !== focused && now !== document.body) return;
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus();
      focused = heading;
    };
    focus();
    const observer = new MutationObserver(focus);
    observer.observe(main, { childList: true, subtree: true });
    const stop = setTimeout(() => observer.disconnect(), 3000);
    return () => {
      observer.disconnect();
      clearTimeout(stop);
    };
  }, [path]);
}
