/**
 * Paging end to end: the model reads a 2,000-line, 154 KB file to its end through
 * the pages `view` offers, and a long web page through `fetch`'s; grep's line cut is
 * marked. What the model receives back is checked at the fake server.
 */
import assert from "node:assert/strict";
import type { ParsedRequest, ScriptedTurn } from "../_support/fake_openai.ts";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { workspace } from "../_support/workspace.ts";
import { lastResult, toolResults } from "./_tool_results.ts";

/** The runner's head+tail cut: a paging tool's result must never need it. */
const RUNNER_CUT = /\[\.\.\. \d+ characters \(\d+ lines\) cut \.\.\.\]/;
const OUTPUT_LIMIT = 30_000;

Deno.test("e2e: a 2,000-line, 154 KB file is read to its end through the pages view offers", async () => {
  const lines = Array.from(
    { length: 2000 },
    (_, i) => `${String(i + 1).padStart(4, "0")} ${"abcdefghij".repeat(7)}.`,
  );
  const file = lines.join("\n") + "\n";
  assert.ok(file.length >= 154_000 && file.length < 155_000, String(file.length));
  // The model follows what each page says: the offset to continue from, until the end.
  const turns = (req: ParsedRequest, index: number): ScriptedTurn => {
    if (index === 0) return scriptToolCall("view", { file_path: "big.txt" });
    const next = /call view with offset (\d+) to continue/.exec(lastResult(req));
    if (!next) return scriptText("read it all");
    return scriptToolCall("view", { file_path: "big.txt", offset: Number(next[1]) });
  };
  await using ws = await workspace({ turns });
  await Deno.writeTextFile(`${ws.dir}/big.txt`, file);
  const r = await ws.run(["run", "--agent", "readonly", "read big.txt"], {});
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const pages = toolResults(ws.fake.turnRequests().at(-1)!);
  assert.ok(pages.length >= 6, `${pages.length} pages`);
  const seen: string[] = [];
  for (const [i, page] of pages.entries()) {
    assert.ok(page.length <= OUTPUT_LIMIT, `page ${i}: ${page.length} characters`);
    assert.doesNotMatch(page, RUNNER_CUT);
    for (const l of page.split("\n")) {
      const m = /^ *(\d+)\|(.*)$/.exec(l);
      if (m) seen.push(m[2]);
    }
    const note = page.split("\n").at(-1)!;
    if (i < pages.length - 1) {
      const total =
        /^\(Lines (\d+)-(\d+) of 2000 shown\. (\d+) more lines remain: call view with offset (\d+) to continue\.\)$/
          .exec(note);
      assert.ok(total, note);
      assert.equal(Number(total[3]), 2000 - Number(total[2]));
    } else {
      assert.match(note, /^\(Lines \d+-2000 of 2000 shown: the end of the file\.\)$/);
    }
  }
  // Every line, once, whole and in order.
  assert.deepEqual(seen, lines);
});

Deno.test("e2e: fetch pages a long document; grep marks a cut line", async () => {
  const body = Array.from({ length: 2500 }, (_, i) => `paragraph ${i + 1} ${"w".repeat(50)}`)
    .join("\n") + "\n";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers: { "content-type": "text/plain" } }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/doc`;
  const turns = (req: ParsedRequest, index: number): ScriptedTurn => {
    if (index === 0) return scriptToolCall("grep", { pattern: "NEEDLE" });
    if (index === 1) return scriptToolCall("fetch", { url, format: "text" });
    const next = /and offset (\d+) to continue/.exec(lastResult(req));
    if (!next) return scriptText("done");
    return scriptToolCall("fetch", { url, format: "text", offset: Number(next[1]) });
  };
  await using ws = await workspace({ turns });
  try {
    // The operator's config (--config) names the host: only the operator may.
    const reader = {
      allowed_tools: ["grep", "fetch"],
      fetch: { hosts: [`127.0.0.1:${server.addr.port}`] },
    };
    await Deno.writeTextFile(`${ws.dir}/operator.json`, JSON.stringify({ agents: { reader } }));
    await Deno.writeTextFile(`${ws.dir}/wide.txt`, `    NEEDLE ${"q".repeat(700)}\n`);
    const r = await ws.run(["run", "--config", "operator.json", "--agent", "reader", "read it"], {
      perms: { ...ws.perms, net: [...ws.perms.net!, `127.0.0.1:${server.addr.port}`] },
    });
    assert.equal(r.code, 0, r.stderr);
    const [grep, ...pages] = toolResults(ws.fake.turnRequests().at(-1)!);
    assert.match(grep, /Line 1: NEEDLE q{493}…\[cut\]$/);
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    let text = "";
    for (const page of pages) {
      assert.ok(page.length <= OUTPUT_LIMIT);
      assert.doesNotMatch(page, RUNNER_CUT);
      text += page.replace(/\n\n\(Characters \d+-\d+ of \d+[^\n]*\)$/, "");
    }
    assert.match(pages.at(-1)!, /: the end\.\)$/);
    assert.equal(text, body);
  } finally {
    await server.shutdown();
  }
});
