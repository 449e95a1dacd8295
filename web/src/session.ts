import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me, Team } from './api';

export interface Session {
  me: Me;
  team: Team;
  /** Reload the user (after a project switch or a settings change). */
  refresh(): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in app');
  return session;
}
