/**
 * Test helper process: opens (and so locks) a session, says "locked", and holds the
 * lock until its stdin closes (then closes the session) or it is killed.
 * Usage: deno run --allow-read=DIR --allow-write=DIR _lock_holder.ts DIR SESSION_ID
 */
import { openSessionStore } from "../../src/session/mod.ts";

const [dataDir, id] = Deno.args;
const store = await openSessionStore(dataDir);
const handle = await store.open(id);
await Deno.stdout.write(new TextEncoder().encode(`locked ${Deno.pid}\n`));
for await (const _ of Deno.stdin.readable) {
  // wait for EOF
}
await handle.close();
store.close();
