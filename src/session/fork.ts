/**
 * `--fork`: a new top-level session that starts with a copy of another's history
 * and tool state, so a run can go on from there while the original stays as it was.
 * The original is read, not opened: it is never locked or written, and forking one
 * that another process is writing copies what it has written so far.
 */
import type { CreateSessionOptions, SessionHandle, SessionStore } from "./types.ts";

export async function forkSession(
  store: SessionStore,
  source: string,
  opts: Omit<CreateSessionOptions, "forked_from" | "parent_id">,
): Promise<SessionHandle> {
  const original = await store.read(source);
  const title = original.meta.title ?? original.header.title;
  const handle = await store.create({
    ...opts,
    forked_from: original.header.id,
    ...(title !== undefined ? { title } : {}),
  });
  try {
    // Message ids are kept: the summary marker and file changes refer to them.
    for (const message of original.messages) await handle.saveMessage(message);
    const { todos, viewed, shell, summary_message_id, model } = original.meta;
    await handle.saveMeta({
      ...(title !== undefined ? { title } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(summary_message_id !== undefined ? { summary_message_id } : {}),
      ...(todos !== undefined ? { todos } : {}),
      ...(viewed !== undefined ? { viewed } : {}),
      ...(shell !== undefined ? { shell } : {}),
    });
    await handle.flush();
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}
