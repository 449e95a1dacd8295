import { useCallback, useEffect, useState } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { ApiFailure, get, type Me, onUnauthenticated } from './api';
import { ErrorNote } from './components/error-note';
import { Shell } from './components/shell';
import { Login } from './pages/login';
import { Signup } from './pages/signup';
import { SessionContext } from './session';

// Pages beyond the first screen load when opened, so the first paint only pays for Home.
const Home = lazy(() => import('./pages/home').then((m) => m.Home));
const Sql = lazy(() => import('./pages/sql').then((m) => m.Sql));
const Insights = lazy(() => import('./pages/insights').then((m) => m.Insights));
const Recordings = lazy(() => import('./pages/recordings').then((m) => m.Recordings));
const RecordingPlayer = lazy(() => import('./pages/recordings').then((m) => m.RecordingPlayer));
const Events = lazy(() => import('./pages/events').then((m) => m.Events));
const People = lazy(() => import('./pages/people').then((m) => m.People));
const PersonPage = lazy(() => import('./pages/people').then((m) => m.PersonPage));
const Dashboards = lazy(() => import('./pages/dashboards').then((m) => m.Dashboards));
const DashboardPage = lazy(() => import('./pages/dashboards').then((m) => m.DashboardPage));
const Flags = lazy(() => import('./pages/flags').then((m) => m.Flags));
const FlagPage = lazy(() => import('./pages/flags').then((m) => m.FlagPage));
const Cohorts = lazy(() => import('./pages/cohorts').then((m) => m.Cohorts));
const Settings = lazy(() => import('./pages/settings').then((m) => m.Settings));
const SharedView = lazy(() => import('./pages/shared').then((m) => m.SharedView));
const NotFound = () => <ErrorNote error={new ApiFailure(404, { detail: 'There is no page here.' })} />;

function SignedIn() {
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<unknown>(null);
  const location = useLocation();
  const load = useCallback(async () => {
    try {
      setMe(await get<Me>('/api/users/@me/'));
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void load();
    return onUnauthenticated(() => location.route(`/login?next=${encodeURIComponent(location.url)}`, true));
  }, []);
  if (error instanceof ApiFailure && error.status === 401) {
    location.route(`/login?next=${encodeURIComponent(location.url)}`, true);
    return null;
  }
  if (error) return <ErrorNote error={error} retry={load} />;
  if (!me) return <div class="loading" aria-busy="true" />;
  if (!me.team) return <ErrorNote error={new Error('You are not a member of any project yet.')} />;
  return (
    <SessionContext.Provider value={{ me, team: me.team, refresh: load }}>
      <Shell>
        <ErrorBoundary>
          <Router>
            <Route path="/" component={Home} />
            <Route path="/sql" component={Sql} />
            <Route path="/insights" component={Insights} />
            <Route path="/dashboards" component={Dashboards} />
            <Route path="/dashboards/:id" component={DashboardPage} />
            <Route path="/recordings" component={Recordings} />
            <Route path="/events" component={Events} />
            <Route path="/feature_flags" component={Flags} />
            <Route path="/feature_flags/:id" component={FlagPage} />
            <Route path="/people" component={People} />
            <Route path="/people/:id" component={PersonPage} />
            <Route path="/cohorts" component={Cohorts} />
            <Route path="/recordings/:id" component={RecordingPlayer} />
            <Route path="/settings" component={Settings} />
            <Route path="/settings/:section" component={Settings} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </Shell>
    </SessionContext.Provider>
  );
}

/** Login and invite pages stand alone; every other page needs a session and sits in the shell. */
function Pages() {
  const { path } = useLocation();
  if (path === '/login') return <Login />;
  // A share link opens without a login, outside the shell.
  if (path.startsWith('/share/'))
    return (
      <Router>
        <Route path="/share/:token" component={SharedView} />
        <Route default component={NotFound} />
      </Router>
    );
  if (path.startsWith('/signup/'))
    return (
      <Router>
        <Route path="/signup/:inviteId" component={Signup} />
        <Route default component={NotFound} />
      </Router>
    );
  return <SignedIn />;
}

export function App() {
  return (
    <LocationProvider>
      <Pages />
    </LocationProvider>
  );
}
