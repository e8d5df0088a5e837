/**
 * The session store: entry point for the app (open a store for the data dir, or an
 * in-memory one for `--ephemeral`) and the pieces the agent and CLI use directly.
 */
import type { SessionStore, StoreOptions } from "./types.ts";
import { DiskSessionStore } from "./store.ts";
import { MemorySessionStore } from "./memory_store.ts";
import { dataDirExists } from "../util/data_dir.ts";
import { join } from "node:path";

export type {
  CreateSessionOptions,
  ListOptions,
  LoadedSession,
  MergedMeta,
  SearchHit,
  SessionHandle,
  SessionStore,
  SessionSummary,
  StoreOptions,
} from "./types.ts";
export { INTERRUPTED_RESULT, repairForRequest } from "./repair.ts";
export { activeHistory } from "./state.ts";
export { isSessionId, newSessionId, shortIdOf } from "./ids.ts";
export { describeSession } from "./ids.ts";
export { sessionToMarkdown } from "./markdown.ts";
export { forkSession } from "./fork.ts";

/**
 * Opens the store of a data dir (`<dataDir>/sessions/*.jsonl` + `<dataDir>/index.db`),
 * creating the folders, and rebuilding the index when it is missing, damaged or behind.
 * With `ephemeral`, nothing is read or written: sessions live in memory. With
 * `existingOnly`, a data dir that holds no sessions folder yet is an empty store and
 * stays untouched.
 */
export async function openSessionStore(
  dataDir: string,
  opts: StoreOptions = {},
): Promise<SessionStore> {
  if (opts.ephemeral) return new MemorySessionStore(opts);
  if (opts.existingOnly && !(await dataDirExists(join(dataDir, "sessions")))) {
    return new MemorySessionStore(opts);
  }
  return await DiskSessionStore.open(dataDir, opts);
}
