import assert from "node:assert/strict";
import {
  collectSecrets,
  REDACTED,
  summarizeInput,
  SUMMARY_MAX,
} from "../../src/secrets/redactor.ts";

Deno.test("redaction: every occurrence, longest first, short values ignored", () => {
  const r = collectSecrets(["sk-live-abcdef123456", "sk-live-abcdef", "abc", "", undefined, null]);
  assert.equal(r.size >= 2, true);
  assert.equal(
    r.redact("key=sk-live-abcdef123456 again sk-live-abcdef123456 and sk-live-abcdef!"),
    `key=${REDACTED} again ${REDACTED} and ${REDACTED}!`,
  );
  // "abc" is shorter than the minimum: ordinary text stays.
  assert.equal(r.redact("abc abcd"), "abc abcd");
});

Deno.test("redaction: bearer header values, JSON-escaped forms, regex characters", () => {
  const r = collectSecrets(["Bearer tok_9f8e7d6c", 'pa"ss\\word+(x)', "value-with-newline\n"]);
  assert.equal(r.redact("Authorization: Bearer tok_9f8e7d6c"), `Authorization: ${REDACTED}`);
  // The token alone (e.g. echoed by a server) is caught too.
  assert.equal(r.redact("token tok_9f8e7d6c seen"), `token ${REDACTED} seen`);
  const line = JSON.stringify({ v: 'pa"ss\\word+(x)' });
  assert.equal(r.redact(line), JSON.stringify({ v: REDACTED }));
  assert.equal(r.redact('raw pa"ss\\word+(x).'), `raw ${REDACTED}.`);
  assert.equal(r.redact("x value-with-newline y"), `x ${REDACTED} y`);
});

Deno.test("redaction: deep values and the no-secrets case", () => {
  const r = collectSecrets(["hunter22"]);
  const record = { role: "user", parts: [{ text: "pw hunter22" }], n: 3, ok: true, nil: null };
  assert.deepEqual(r.redactValue(record), {
    role: "user",
    parts: [{ text: `pw ${REDACTED}` }],
    n: 3,
    ok: true,
    nil: null,
  });
  assert.equal(record.parts[0].text, "pw hunter22"); // the input is not changed
  const none = collectSecrets([]);
  assert.equal(none.size, 0);
  assert.equal(none.redact("anything hunter22"), "anything hunter22");
});

Deno.test("summarizeInput: compact, bounded, secrets masked", () => {
  // One line: JSON escapes newlines, runs of blanks shrink to one.
  assert.equal(
    summarizeInput({ command: "npm  test\n--watch" }),
    '{"command":"npm test\\n--watch"}',
  );
  assert.equal(summarizeInput("ls\n  -la"), "ls -la");
  const long = summarizeInput({ content: "x".repeat(5000) });
  assert.equal(long.length, SUMMARY_MAX);
  assert.ok(long.endsWith("…"));
  const masked = summarizeInput({
    url: "https://user:pw123456@host/x",
    headers: { Authorization: "Bearer abcdefghijkl" },
    api_key: "plain",
    max_tokens: 100,
    note: "use sk-proj-abcdefghijklmnop please, or ghp_abcdefghijklmnop1234",
  });
  assert.doesNotMatch(masked, /pw123456|abcdefghijkl|plain|sk-proj-abc|ghp_abc/);
  assert.match(masked, /"max_tokens":100/);
  assert.match(masked, /"api_key":"\*\*\*"/);
  assert.match(masked, /user:\*\*\*@host/);
  // Known secret values from config, through the redactor.
  const r = collectSecrets(["corp-secret-42"]);
  assert.equal(summarizeInput({ q: "corp-secret-42" }, r.redact), `{"q":"${REDACTED}"}`);
  // Odd inputs never throw.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(typeof summarizeInput(cyclic), "string");
  assert.equal(summarizeInput(undefined), "undefined");
  assert.equal(summarizeInput({ n: 10n }), '{"n":"10"}');
});

Deno.test("redaction: a secret added later (an OAuth token) is hidden from then on", () => {
  const r = collectSecrets([]);
  assert.equal(r.redact("tok_live_123456 here"), "tok_live_123456 here");
  r.add("tok_live_123456");
  r.add("tok_live_123456"); // a second add of the same value changes nothing
  r.add("abc"); // too short, as at construction
  assert.equal(r.size, 1);
  assert.equal(r.redact("tok_live_123456 here"), `${REDACTED} here`);
  assert.deepEqual(r.redactValue({ t: ["x tok_live_123456"] }), { t: [`x ${REDACTED}`] });
  assert.equal(r.heldTail("the token is tok_li"), "tok_li".length);
});
