import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, get, hogql } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { useSession } from '../../session';

type QType = 'open' | 'rating' | 'single_choice' | 'multiple_choice' | 'link';
interface Question {
  id?: string;
  type: QType;
  question: string;
  choices?: string[];
  scale?: number;
  display?: string;
  link?: string;
  branching?: { type: string; index?: number };
}
interface Survey {
  id: string;
  name: string;
  description: string;
  type: string;
  questions: Question[];
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  conditions: { url?: string } | null;
  responses_limit: number | null;
}
interface QuestionSummary {
  id: string;
  question: string;
  type: string;
  counts?: Record<string, number>;
  distribution?: Record<string, number>;
  nps?: number | null;
  answers?: string[];
  clicked?: number;
}

const TYPES: Record<QType, string> = {
  open: 'Open text',
  rating: 'Rating',
  single_choice: 'Single choice',
  multiple_choice: 'Multiple choice',
  link: 'Link',
};

const status = (s: Survey) =>
  s.archived ? 'Archived' : s.start_date === null ? 'Draft' : s.end_date !== null ? 'Stopped' : 'Running';

/** Surveys as PostHog has them: the list, a new survey's form, and each survey's page. */
export function SurveysPage() {
  const { team } = useSession();
  const [surveys, setSurveys] = useState<Survey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    get<{ results: Survey[] }>(`/api/projects/${team.id}/surveys/`).then(
      (r) => setSurveys(r.results),
      setError,
    );
  }, [team.id, tick]);
  return (
    <div class="page">
      <div class="row wrap" style={{ justifyContent: 'space-between' }}>
        <h1>Surveys</h1>
        <button type="button" class="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New survey
        </button>
      </div>
      {creating && (
        <SurveyForm
          onCreated={() => {
            setCreating(false);
            setTick((t) => t + 1);
          }}
        />
      )}
      <section class="card" style={{ overflowX: 'auto' }}>
        {error !== null && <ErrorNote error={error} />}
        {surveys === null && error === null && <div class="skeleton" style={{ height: '120px' }} />}
        {surveys?.length === 0 && (
          <p class="muted">
            No surveys yet. posthog-js shows popover surveys on your site (docs/surveys.md).
          </p>
        )}
        {surveys && surveys.length > 0 && (
          <table class="events">
            <thead>
              <tr>
                <th>Name</th>
                <th>Type</th>
                <th>Questions</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {surveys.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={`/surveys/${s.id}`}>{s.name}</a>
                  </td>
                  <td>{s.type}</td>
                  <td>{s.questions.length}</td>
                  <td>{status(s)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

const blank = (): Question => ({ type: 'open', question: '' });

/** A new survey: its questions of every type, branching after each, and a preview of what people see. */
function SurveyForm({ onCreated }: { onCreated: () => void }) {
  const { team } = useSession();
  const [name, setName] = useState('');
  const [type, setType] = useState('popover');
  const [url, setUrl] = useState('');
  const [questions, setQuestions] = useState<Question[]>([blank()]);
  const [error, setError] = useState<unknown>(null);
  const set = (i: number, patch: Partial<Question>) =>
    setQuestions(questions.map((q, j) => (j === i ? { ...q, ...patch } : q)));
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', `/api/projects/${team.id}/surveys/`, {
        name,
        type,
        questions: questions.map((q) => {
          const out: Question = { type: q.type, question: q.question };
          if (q.type === 'single_choice' || q.type === 'multiple_choice') out.choices = q.choices ?? [];
          if (q.type === 'rating') {
            out.scale = q.scale ?? 5;
            out.display = 'number';
          }
          if (q.type === 'link') out.link = q.link ?? '';
          if (q.branching && q.branching.type !== 'next_question') out.branching = q.branching;
          return out;
        }),
        ...(url ? { conditions: { url, urlMatchType: 'icontains' } } : {}),
      });
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="card form" aria-label="New survey">
      <form onSubmit={save}>
        <div class="row wrap">
          <label>
            Name{' '}
            <input required value={name} maxLength={400} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Presentation{' '}
            <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
              <option value="popover">Popover (posthog-js)</option>
              <option value="api">API (your own UI)</option>
            </select>
          </label>
          <label>
            URL contains <input value={url} maxLength={400} onInput={(e) => setUrl(e.currentTarget.value)} />
          </label>
        </div>
        {questions.map((q, i) => (
          <fieldset key={i} class="card">
            <legend>Question {i + 1}</legend>
            <div class="row wrap">
              <label>
                Question {i + 1} type{' '}
                <select value={q.type} onChange={(e) => set(i, { type: e.currentTarget.value as QType })}>
                  {Object.entries(TYPES).map(([v, l]) => (
                    <option key={v} value={v}>
                      {l}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Question {i + 1} text{' '}
                <input
                  required
                  value={q.question}
                  maxLength={1000}
                  onInput={(e) => set(i, { question: e.currentTarget.value })}
                />
              </label>
              {(q.type === 'single_choice' || q.type === 'multiple_choice') && (
                <label>
                  Question {i + 1} choices (comma-separated){' '}
                  <input
                    value={(q.choices ?? []).join(', ')}
                    onInput={(e) =>
                      set(i, {
                        choices: e.currentTarget.value
                          .split(',')
                          .map((c) => c.trim())
                          .filter(Boolean),
                      })
                    }
                  />
                </label>
              )}
              {q.type === 'rating' && (
                <label>
                  Question {i + 1} scale{' '}
                  <select
                    value={q.scale ?? 5}
                    onChange={(e) => set(i, { scale: Number(e.currentTarget.value) })}
                  >
                    <option value={5}>1-5</option>
                    <option value={7}>1-7</option>
                    <option value={10}>0-10 (NPS)</option>
                  </select>
                </label>
              )}
              {q.type === 'link' && (
                <label>
                  Question {i + 1} link{' '}
                  <input
                    type="url"
                    value={q.link ?? ''}
                    onInput={(e) => set(i, { link: e.currentTarget.value })}
                  />
                </label>
              )}
              <label>
                After question {i + 1}{' '}
                <select
                  value={
                    q.branching?.type === 'specific_question'
                      ? `q${q.branching.index}`
                      : (q.branching?.type ?? 'next_question')
                  }
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    set(i, {
                      branching: v.startsWith('q')
                        ? { type: 'specific_question', index: Number(v.slice(1)) }
                        : { type: v },
                    });
                  }}
                >
                  <option value="next_question">Next question</option>
                  <option value="end">End the survey</option>
                  {questions.map((_, j) =>
                    j > i + 1 ? (
                      <option key={j} value={`q${j}`}>
                        Go to question {j + 1}
                      </option>
                    ) : null,
                  )}
                </select>
              </label>
              {questions.length > 1 && (
                <button type="button" onClick={() => setQuestions(questions.filter((_, j) => j !== i))}>
                  Remove question {i + 1}
                </button>
              )}
            </div>
          </fieldset>
        ))}
        <div class="row wrap">
          <button type="button" onClick={() => setQuestions([...questions, blank()])}>
            Add question
          </button>
          <button type="submit" class="primary">
            Save draft
          </button>
        </div>
        {error !== null && <ErrorNote error={error} />}
      </form>
      <Preview questions={questions} />
    </section>
  );
}

/** What posthog-js draws, roughly: each question with its choices or scale. */
function Preview({ questions }: { questions: Question[] }) {
  return (
    <aside class="card" aria-label="Preview">
      <h2>Preview</h2>
      <ol>
        {questions.map((q, i) => (
          <li key={i}>
            <strong>{q.question || <span class="muted">(no text yet)</span>}</strong>
            {(q.type === 'single_choice' || q.type === 'multiple_choice') && (
              <ul>
                {(q.choices ?? []).map((c) => (
                  <li key={c}>
                    {q.type === 'single_choice' ? '○' : '☐'} {c}
                  </li>
                ))}
              </ul>
            )}
            {q.type === 'rating' && (
              <div class="muted">
                {Array.from({ length: q.scale === 10 ? 11 : (q.scale ?? 5) }, (_, n) =>
                  q.scale === 10 ? n : n + 1,
                ).join(' ')}
              </div>
            )}
            {q.type === 'open' && <div class="muted">Free text</div>}
            {q.type === 'link' && <div class="muted">Link: {q.link}</div>}
          </li>
        ))}
      </ol>
    </aside>
  );
}

/** One survey: launch, stop, archive; stats and per-question results. */
export function SurveyPage() {
  const { params } = useRoute();
  const { team } = useSession();
  const id = params.id ?? '';
  const base = `/api/projects/${team.id}/surveys/${id}/`;
  const [survey, setSurvey] = useState<Survey | null>(null);
  const [summary, setSummary] = useState<{ responses: number; questions: QuestionSummary[] } | null>(null);
  const [stats, setStats] = useState<Record<string, { total_count: number; unique_persons: number }> | null>(
    null,
  );
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    setError(null);
    Promise.all([
      get<Survey>(base),
      get<{ responses: number; questions: QuestionSummary[] }>(`${base}summary/`),
      get<{ stats: Record<string, { total_count: number; unique_persons: number }> }>(`${base}stats/`),
    ]).then(([s, sum, st]) => {
      setSurvey(s);
      setSummary(sum);
      setStats(st.stats);
    }, setError);
  }, [base, tick]);
  const change = async (body: object) => {
    try {
      await api('PATCH', base, body);
      setTick((t) => t + 1);
    } catch (err) {
      setError(err);
    }
  };
  if (!survey)
    return (
      <div class="page">
        {error ? <ErrorNote error={error} /> : <div class="skeleton" style={{ height: '160px' }} />}
      </div>
    );
  const state = status(survey);
  return (
    <div class="page">
      <p>
        <a href="/surveys">← Surveys</a>
      </p>
      <h1>{survey.name}</h1>
      <section class="card row wrap">
        <span>
          Status: <strong>{state}</strong>
        </span>
        {state === 'Draft' && (
          <button
            type="button"
            class="primary"
            onClick={() => change({ start_date: new Date().toISOString() })}
          >
            Launch
          </button>
        )}
        {state === 'Running' && (
          <button type="button" onClick={() => change({ end_date: new Date().toISOString() })}>
            Stop
          </button>
        )}
        {state === 'Stopped' && (
          <button type="button" onClick={() => change({ end_date: null })}>
            Resume
          </button>
        )}
        {!survey.archived && (
          <button type="button" onClick={() => change({ archived: true })}>
            Archive
          </button>
        )}
        <button type="button" onClick={() => setTick((t) => t + 1)}>
          Refresh results
        </button>
      </section>
      {error !== null && <ErrorNote error={error} />}
      <section class="card" aria-label="Stats">
        <h2>Responses: {summary?.responses ?? 0}</h2>
        <p class="muted">
          Shown {stats?.['survey shown']?.total_count ?? 0} · dismissed{' '}
          {stats?.['survey dismissed']?.total_count ?? 0} · sent {stats?.['survey sent']?.total_count ?? 0}
        </p>
      </section>
      {summary?.questions.map((q, i) => (
        <section class="card" key={q.id ?? i} aria-label={`Results of question ${i + 1}`}>
          <h2>
            {i + 1}. {q.question}
          </h2>
          {q.counts && <Bars data={q.counts} label="Answers per choice" />}
          {q.distribution && (
            <>
              {q.nps !== null && q.nps !== undefined && <p>NPS: {q.nps}</p>}
              <Bars data={q.distribution} label="Ratings" />
            </>
          )}
          {q.answers &&
            (q.answers.length ? (
              <ul>
                {q.answers.map((a, j) => (
                  <li key={j}>{a}</li>
                ))}
              </ul>
            ) : (
              <p class="muted">No answers yet.</p>
            ))}
          {q.clicked !== undefined && <p>{q.clicked} clicked the link</p>}
        </section>
      ))}
    </div>
  );
}

/** Counts as a table with a bar in each row (the number is the text; the bar only shows it). */
function Bars({ data, label }: { data: Record<string, number>; label: string }) {
  const max = Math.max(1, ...Object.values(data));
  const entries = Object.entries(data);
  if (!entries.length) return <p class="muted">No answers yet.</p>;
  return (
    <table class="events" aria-label={label}>
      <tbody>
        {entries.map(([k, n]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td style={{ width: '60%' }}>
              <div
                style={{
                  background: 'var(--accent, currentColor)',
                  height: '0.6rem',
                  width: `${(n / max) * 100}%`,
                }}
              />
            </td>
            <td>{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

interface Feature {
  id: string;
  name: string;
  description: string;
  stage: string;
  feature_flag: { id: number; key: string } | null;
}

/** A HogQL string literal of `value` (quotes and backslashes escaped). */
const literal = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The people enrolled in one feature (newest first, at most 100), each linking to their page. */
function EnrolledPeople({ flagKey, name }: { flagKey: string; name: string }) {
  const { team } = useSession();
  const [people, setPeople] = useState<Array<{ id: string; label: string }> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setPeople(null);
    const property = literal(`$feature_enrollment/${flagKey}`);
    hogql(
      team.id,
      `SELECT id, coalesce(properties.email, properties.name, toString(id)) FROM persons WHERE properties[${property}] = true ORDER BY created_at DESC LIMIT 100`,
    ).then(
      (r) => setPeople(r.results.map((row) => ({ id: String(row[0]), label: String(row[1]) }))),
      setError,
    );
  }, [team.id, flagKey]);
  return (
    <section class="card" aria-label={`People enrolled in ${name}`}>
      <h2>People enrolled in {name}</h2>
      {error !== null && <ErrorNote error={error} />}
      {people === null && error === null && <p class="muted">Loading…</p>}
      {people?.length === 0 && <p class="muted">Nobody has opted in yet.</p>}
      {people && people.length > 0 && (
        <ul>
          {people.map((p) => (
            <li key={p.id}>
              <a href={`/people/${p.id}`}>{p.label}</a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Early access features: stage, linked flag and how many people opted in (`$feature_enrollment/<key>`). */
export function EarlyAccessPage() {
  const { team } = useSession();
  const [features, setFeatures] = useState<Feature[] | null>(null);
  const [enrolled, setEnrolled] = useState<Record<string, number>>({});
  const [shown, setShown] = useState<Feature | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    get<{ results: Feature[] }>(`/api/projects/${team.id}/early_access_feature/`).then(async (r) => {
      setFeatures(r.results);
      const keys = r.results.map((f) => f.feature_flag?.key).filter((k): k is string => !!k);
      if (!keys.length) return;
      const cols = keys.map(
        (k, i) => `countIf(properties['$feature_enrollment/${k.replace(/'/g, "\\'")}'] = true) AS c${i}`,
      );
      const res = await hogql(team.id, `SELECT ${cols.join(', ')} FROM persons`);
      const row = res.results[0] ?? [];
      setEnrolled(Object.fromEntries(keys.map((k, i) => [k, Number(row[i] ?? 0)])));
    }, setError);
  }, [team.id]);
  return (
    <div class="page">
      <h1>Early access</h1>
      <section class="card" style={{ overflowX: 'auto' }}>
        {error !== null && <ErrorNote error={error} />}
        {features?.length === 0 && <p class="muted">No early access features yet (docs/surveys.md).</p>}
        {features && features.length > 0 && (
          <table class="events">
            <thead>
              <tr>
                <th>Feature</th>
                <th>Stage</th>
                <th>Flag</th>
                <th>People enrolled</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {features.map((f) => (
                <tr key={f.id}>
                  <td>
                    {f.name}
                    <div class="muted">{f.description}</div>
                  </td>
                  <td>{f.stage}</td>
                  <td>
                    {f.feature_flag ? (
                      <a href={`/feature_flags/${f.feature_flag.id}`}>{f.feature_flag.key}</a>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{f.feature_flag ? (enrolled[f.feature_flag.key] ?? '…') : '—'}</td>
                  <td>
                    {f.feature_flag && (
                      <button
                        type="button"
                        onClick={() => setShown(f)}
                        aria-label={`Show people enrolled in ${f.name}`}
                      >
                        People
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {shown?.feature_flag && <EnrolledPeople flagKey={shown.feature_flag.key} name={shown.name} />}
    </div>
  );
}
