import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api';
import { useSession } from '../session';
import { closeMenus, moveBetweenTabs, useFocusHeadingOnNavigate } from './keyboard';

const NAV = [
  { href: '/', label: 'Home' },
  { href: '/web', label: 'Web analytics' },
  { href: '/insights', label: 'Insights' },
  { href: '/dashboards', label: 'Dashboards' },
  { href: '/sql', label: 'SQL' },
  { href: '/recordings', label: 'Recordings' },
  { href: '/events', label: 'Events' },
  { href: '/llm', label: 'LLM analytics' },
  { href: '/errors', label: 'Errors' },
  { href: '/people', label: 'People' },
  { href: '/cohorts', label: 'Cohorts' },
  { href: '/feature_flags', label: 'Feature flags' },
  { href: '/experiments', label: 'Experiments' },
  { href: '/surveys', label: 'Surveys' },
  { href: '/early_access_features', label: 'Early access' },
  { href: '/destinations', label: 'Destinations' },
  { href: '/settings', label: 'Settings' },
];

export function Shell({ children }: { children: ComponentChildren }) {
  const { me, team } = useSession();
  const { path, route } = useLocation();
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  useFocusHeadingOnNavigate(path);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (moveBetweenTabs(event) || closeMenus(event)) return;
      // The narrow screen's menu: Escape closes it and gives the focus back to its button.
      if (event.key === 'Escape' && menuButton.current?.getAttribute('aria-expanded') === 'true') {
        setOpen(false);
        menuButton.current.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const logout = async () => {
    await api('POST', '/api/logout/').catch(() => undefined);
    route('/login', true);
  };
  const active = (href: string) => (href === '/' ? path === '/' : path.startsWith(href));
  return (
    <div class={`shell${open ? ' nav-open' : ''}`}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="menu-button"
          ref={menuButton}
          aria-expanded={open}
          aria-controls="nav"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <a class="brand" href="/">
          <img src="/favicon.svg" alt="" width={22} height={22} />
          Burrow
        </a>
        <span class="project" title={`Project ${team.id}`}>
          {team.name}
        </span>
      </header>
      <nav id="nav" class="nav" aria-label="Main">
        <ul>
          {NAV.map((item) => (
            <li key={item.href}>
              <a
                href={item.href}
                aria-current={active(item.href) ? 'page' : undefined}
                onClick={() => setOpen(false)}
              >
                {item.label}
              </a>
            </li>
          ))}
        </ul>
        <div class="nav-foot">
          <span class="muted" title={me.email}>
            {me.email}
          </span>
          <button type="button" class="link" onClick={logout}>
            Log out
          </button>
        </div>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
