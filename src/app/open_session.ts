/**
 * Opens the session an agent run writes to: for the run, a new one (with the id
 * `--session-id` chose) or the one it continues (`-C`, `-s`), or with `--fork` a new
 * copy of that one, restoring what resume brings back (history from the last
 * summary on, the model of the last assistant message, todos, viewed files and
 * shell state); for a sub-agent, a new child session. Also what the tools of a
 * session see, and which part of it is kept across runs.
 */
import type { Message } from "../domain/message.ts";
import type { ToolContext, ToolState } from "../tools/types.ts";
import type { SessionWriter } from "../session/types.ts";
import {
  activeHistory,
  forkSession,
  type SessionHandle,
  type SessionStore,
} from "../session/mod.ts";
import { StorageWatch } from "./storage_watch.ts";

export interface OpenedSession {
  handle: SessionHandle;
  history: Message[];
  /** `provider/model` of the last assistant message, for resume. */
  lastModel?: string;
  state: ToolState;
  resumed: boolean;
}

/** `session`: the id of the session to continue (resume_target.ts found it); else a new one. */
export async function openRunSession(
  store: SessionStore,
  opts: {
    session?: string;
    cwd: string;
    /** `--fork`: continue `session` in a new session that copies it. */
    fork?: boolean;
    /** `--session-id`: the id of the new session (or of the fork). */
    sessionId?: string;
  },
): Promise<OpenedSession> {
  const id = opts.sessionId !== undefined ? { id: opts.sessionId } : {};
  if (opts.session === undefined) {
    const fresh = await store.create({ cwd: opts.cwd, ...id });
    return { handle: fresh, history: [], state: emptyState(opts.cwd), resumed: false };
  }
  const handle: SessionHandle = opts.fork
    ? await forkSession(store, opts.session, { cwd: opts.cwd, ...id })
    : await store.open(opts.session);
  try {
    const loaded = await handle.load();
    const state = emptyState(opts.cwd);
    state.todos = loaded.meta.todos ?? [];
    state.viewed = new Map(Object.entries(loaded.meta.viewed ?? {}));
    if (loaded.meta.shell) state.shell = structuredClone(loaded.meta.shell);
    return {
      handle,
      history: activeHistory(loaded),
      lastModel: loaded.last_model,
      state,
      resumed: true,
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** A sub-agent's session: new, with the run's session as parent (so `-C` never picks it). */
export async function openChildSession(
  store: SessionStore,
  opts: { cwd: string; parentId: string },
): Promise<OpenedSession> {
  const handle = await store.create({ cwd: opts.cwd, parent_id: opts.parentId });
  return { handle, history: [], state: emptyState(opts.cwd), resumed: false };
}

/** Tool state of a session that has none yet. */
export function emptyState(cwd: string): ToolState {
  return { viewed: new Map(), todos: [], shell: { cwd, env: {} } };
}

/**
 * What the tools of one session see: its state, where file changes are recorded and
 * how a state change is persisted (the writer is the secret-safe one).
 */
export function sessionToolContext(opts: {
  writer: SessionWriter;
  state: ToolState;
  workspace: string;
  env: Record<string, string>;
  attachments: boolean;
}): Omit<ToolContext, "signal"> {
  const { writer, state } = opts;
  return {
    session_id: writer.id,
    workspace: opts.workspace,
    state,
    env: opts.env,
    attachments: opts.attachments,
    // Not waited for; the writer is the run's watched one (storage_watch.ts), which ends
    // the run when such a write fails.
    recordChange: (change) => StorageWatch.background(writer.recordChange(change)),
    stateChanged: () => StorageWatch.background(writer.saveMeta(persistedState(state))),
  };
}

/** The parts of tool state that a session keeps across runs. */
export function persistedState(state: ToolState) {
  return {
    todos: state.todos,
    viewed: Object.fromEntries(state.viewed),
    shell: state.shell,
  };
}
