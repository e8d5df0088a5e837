/**
 * The redacting wrappers of a run hide secrets the redactor learns after they were
 * built: OAuth tokens join the run's redactor as MCP servers load or obtain them, so
 * a redactor that starts out empty must still be applied.
 */
import assert from "node:assert/strict";
import { collectSecrets, REDACTED } from "../../src/secrets/redactor.ts";
import { redactingEmit, secretSafeWriter } from "../../src/app/redacting.ts";
import type { AgentEvent } from "../../src/agent/events.ts";
import type { SessionWriter } from "../../src/session/types.ts";

const TOKEN = "oauth_access_7f3a9c";

Deno.test("session records and events hide a token added after the wrappers were built", async () => {
  const redactor = collectSecrets([]);
  const saved: unknown[] = [];
  const inner: SessionWriter = {
    id: "s1",
    saveMessage: (m) => Promise.resolve(void saved.push(m)),
    liveMessage: () => ({ changed() {} }),
    saveMeta: (m) => Promise.resolve(void saved.push(m)),
    recordChange: (c) => Promise.resolve(void saved.push(c)),
    flush: () => Promise.resolve(),
  };
  const writer = secretSafeWriter(inner, redactor);
  const events: AgentEvent[] = [];
  const emit = redactingEmit((e) => events.push(e), redactor);

  redactor.add(TOKEN);
  await writer.saveMeta({ title: `uses ${TOKEN}` });
  emit({ type: "text", delta: `the token is ${TOKEN.slice(0, 8)}`, message_id: "m1" });
  emit({ type: "text", delta: `${TOKEN.slice(8)}.`, message_id: "m1" });
  emit.flush();

  assert.deepEqual(saved, [{ title: `uses ${REDACTED}` }]);
  const text = events.map((e) => e.type === "text" ? e.delta : "").join("");
  assert.equal(text, `the token is ${REDACTED}.`);
});
