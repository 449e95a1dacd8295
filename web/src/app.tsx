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
const InsightPage = lazy(() => import('./pages/insights').then((m) => m.InsightPage));
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
const CohortPage = lazy(() => import('./pages/cohorts').then((m) => m.CohortPage));
const Settings = lazy(() => import('./pages/settings').then((m) => m.Settings));
const SurveysPage = lazy(() => import('./pages/surveys/index').then((m) => m.SurveysPage));
const SurveyPage = lazy(() => import('./pages/surveys/index').then((m) => m.SurveyPage));
const EarlyAccessPage = lazy(() => import('./pages/surveys/index').then((m) => m.EarlyAccessPage));
const ErrorsPage = lazy(() => import('./pages/errors/index').then((m) => m.ErrorsPage));
const ErrorIssuePage = lazy(() => import('./pages/errors/index').then((m) => m.ErrorIssuePage));
const ExperimentsPage = lazy(() => import('./pages/experiments/index').then((m) => m.ExperimentsPage));
const ExperimentPage = lazy(() => import('./pages/experiments/index').then((m) => m.ExperimentPage));
const DestinationsPage = lazy(() => import('./pages/destinations/index').then((m) => m.DestinationsPage));
const DestinationPage = lazy(() => import('./pages/destinations/index').then((m) => m.DestinationPage));
const WebAnalyticsPage = lazy(() => import('./pages/web-analytics/index').then((m) => m.WebAnalyticsPage));
const LlmTraces = lazy(() => import('./pages/llm/index').then((m) => m.LlmTraces));
const LlmTracePage = lazy(() => import('./pages/llm/index').then((m) => m.LlmTracePage));
/** The page for an address the console does not have (the server sends browsers here too, as a 404). */
const NotFound = () => (
  <div class="page">
    <h1>Page not found</h1>
    <p>
      There is no page at <code>{location.pathname}</code>. It may have moved, or the link may be mistyped.
    </p>
    <p>
      <a href="/">Go to Home</a>
    </p>
  </div>
);
const StandaloneNotFound = () => (
  <div class="auth-page">
    <div class="card auth-card">
      <NotFound />
    </div>
  </div>
);

/** Where to come back after logging in: the page open when the session was found lost, read then. */
const loginUrl = () => `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
const SharedView = lazy(() => import('./pages/shared').then((m) => m.SharedView));

function SignedIn() {
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { route } = useLocation();
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
    // Read the address when the 401 arrives, not when this first rendered: the person may have
    // moved through several pages since.
    return onUnauthenticated(() => route(loginUrl(), true));
  }, []);
  if (error instanceof ApiFailure && error.status === 401) {
    route(loginUrl(), true);
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
            <Route path="/web" component={WebAnalyticsPage} />
            <Route path="/sql" component={Sql} />
            <Route path="/insights" component={Insights} />
            <Route path="/insights/new" component={Insights} />
            <Route path="/insights/:shortId" component={InsightPage} />
            <Route path="/dashboards" component={Dashboards} />
            <Route path="/dashboards/:id" component={DashboardPage} />
            <Route path="/recordings" component={Recordings} />
            <Route path="/events" component={Events} />
            <Route path="/experiments" component={ExperimentsPage} />
            <Route path="/experiments/:id" component={ExperimentPage} />
            <Route path="/surveys" component={SurveysPage} />
            <Route path="/surveys/:id" component={SurveyPage} />
            <Route path="/early_access_features" component={EarlyAccessPage} />
            <Route path="/errors" component={ErrorsPage} />
            <Route path="/errors/:id" component={ErrorIssuePage} />
            <Route path="/destinations" component={DestinationsPage} />
            <Route path="/destinations/:id" component={DestinationPage} />
            <Route path="/llm" component={LlmTraces} />
            <Route path="/llm/:id" component={LlmTracePage} />
            <Route path="/feature_flags" component={Flags} />
            <Route path="/feature_flags/:id" component={FlagPage} />
            <Route path="/people" component={People} />
            <Route path="/people/:id" component={PersonPage} />
            <Route path="/cohorts" component={Cohorts} />
            <Route path="/cohorts/:id" component={CohortPage} />
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
        <Route default component={StandaloneNotFound} />
      </Router>
    );
  if (path.startsWith('/signup/'))
    return (
      <Router>
        <Route path="/signup/:inviteId" component={Signup} />
        <Route default component={StandaloneNotFound} />
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
