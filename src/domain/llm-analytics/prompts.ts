import { randomUUID } from 'node:crypto';
import { ApiError, notFound, validationError } from '../../errors.js';
import { isUniqueViolation } from '../../store/meta/errors.js';
import {
  deletePromptName,
  highestVersion,
  insertPromptVersion,
  type LlmPromptRecord,
  latestPrompts,
  promptById,
  promptVersions,
} from '../../store/meta/llm-prompts.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';

/** A prompt version as the API shows it: the version and where it stands among its name's. */
export interface PromptView extends LlmPromptRecord {
  latestVersion: number;
  versionCount: number;
}

/** Names the SDK puts in a URL path: letters, digits, `_`, `-`, `.`. */
const NAME = /^[A-Za-z0-9_.-]{1,255}$/;

function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw validationError('Only letters, digits, "_", "-" and "." are allowed, at most 255.', 'name');
  }
}

function checkPrompt(prompt: unknown): void {
  if (prompt === undefined || prompt === null || prompt === '')
    throw validationError('This field is required.', 'prompt', 'required');
}

async function view(deps: Deps, p: LlmPromptRecord): Promise<PromptView> {
  const versions = await promptVersions(deps.meta, p.teamId, p.name);
  return { ...p, latestVersion: versions[0]?.version ?? p.version, versionCount: versions.length };
}

/** Writes the next version of a name; two writers at once: the loser is told to retry (409). */
async function writeVersion(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  name: string,
  prompt: unknown,
): Promise<LlmPromptRecord> {
  const version = (await highestVersion(deps.meta, access.team.id, name)) + 1;
  try {
    return await insertPromptVersion(deps.meta, {
      id: randomUUID(),
      teamId: access.team.id,
      name,
      version,
      prompt,
      createdAt: deps.now().toISOString(),
      createdBy: principal.user.id,
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new ApiError(
      409,
      'invalid_request',
      'conflict',
      `Another version of "${name}" was just published; retry.`,
    );
  }
}

export async function createPrompt(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: { name: string; prompt: unknown },
): Promise<PromptView> {
  checkName(input.name);
  checkPrompt(input.prompt);
  if ((await promptVersions(deps.meta, access.team.id, input.name)).length > 0) {
    throw validationError(`A prompt named "${input.name}" already exists.`, 'name', 'unique');
  }
  return view(deps, await writeVersion(deps, access, principal, input.name, input.prompt));
}

/** Changing a prompt publishes a new version of its name; earlier versions stay readable. */
export async function publishPrompt(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  id: string,
  input: { prompt?: unknown },
): Promise<PromptView> {
  const current = await promptById(deps.meta, access.team.id, id);
  if (!current) throw notFound();
  if (input.prompt === undefined) return view(deps, current);
  checkPrompt(input.prompt);
  return view(deps, await writeVersion(deps, access, principal, current.name, input.prompt));
}

export async function getPrompt(deps: Deps, access: ProjectAccess, id: string): Promise<PromptView> {
  const p = await promptById(deps.meta, access.team.id, id);
  if (!p) throw notFound();
  return view(deps, p);
}

/** By name: the latest version, or the one asked for (what `@posthog/ai`'s `Prompts.get` reads). */
export async function getPromptByName(
  deps: Deps,
  access: ProjectAccess,
  name: string,
  version?: number,
): Promise<PromptView> {
  const versions = await promptVersions(deps.meta, access.team.id, name);
  const p = version === undefined ? versions[0] : versions.find((v) => v.version === version);
  if (!p)
    throw notFound(
      `Prompt "${name.slice(0, 255)}"${version === undefined ? '' : ` version ${version}`} not found.`,
    );
  return { ...p, latestVersion: versions[0]?.version ?? p.version, versionCount: versions.length };
}

export async function listPromptVersions(
  deps: Deps,
  access: ProjectAccess,
  name: string,
): Promise<PromptView[]> {
  const versions = await promptVersions(deps.meta, access.team.id, name);
  if (versions.length === 0) throw notFound();
  const latest = versions[0]?.version ?? 0;
  return versions.map((v) => ({ ...v, latestVersion: latest, versionCount: versions.length }));
}

export async function listPrompts(
  deps: Deps,
  access: ProjectAccess,
  page: { limit: number; offset: number; search?: string | undefined },
): Promise<{ count: number; results: PromptView[] }> {
  const { count, results } = await latestPrompts(deps.meta, access.team.id, page);
  return { count, results: results.map((p) => ({ ...p, latestVersion: p.version })) };
}

export async function deletePrompt(deps: Deps, access: ProjectAccess, id: string): Promise<void> {
  const p = await promptById(deps.meta, access.team.id, id);
  if (!p) throw notFound();
  await deletePromptName(deps.meta, access.team.id, p.name);
}
