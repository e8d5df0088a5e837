/**
 * A real run with the reference servers from npm (server-filesystem and
 * server-everything over stdio) and a skill under the home folder, under narrow Deno
 * flags: the model gets `read_media_file`'s image once and no base64 text, the
 * task-only `simulate-research-query` works, and `~/skills` is the home folder's.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { everythingStdio } from "../_support/mcp_everything.ts";
import { fakePng, filesystemStdio } from "../_support/mcp_filesystem.ts";
import { mcpWorkspace, systemText, toolMessages } from "./_mcp_run.ts";

Deno.test("e2e real servers: one image and no base64 text, a task-only tool, ~/ skills from HOME", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-home-" }));
  await using _home = { [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }) };
  await Deno.mkdir(`${home}/skills/release`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/skills/release/SKILL.md`,
    "---\nname: release-notes\ndescription: Writes release notes from the git log\n---\nSteps.\n",
  );
  const png = fakePng(27 * 1024);
  await Deno.mkdir(`${home}/pics`);
  await Deno.writeFile(`${home}/pics/shot.png`, png);
  await using ws = await mcpWorkspace(
    [
      scriptToolCall("mcp_fs_read_media_file", { path: `${home}/pics/shot.png` }),
      scriptToolCall("mcp_ev_simulate-research-query", { topic: "tides" }),
      scriptText("Seen both."),
    ],
    {
      // Generous start-up and call limits: two npm servers on a loaded machine.
      fs: { ...filesystemStdio(`${home}/pics`), timeout: 60 },
      ev: { ...everythingStdio(), timeout: 60 },
    },
    { config: { options: { skills_paths: ["~/skills"] } } },
  );
  const r = await ws.run(["run", "-o", "stream-json", "look"], {
    perms: { ...ws.perms, read: [...ws.perms.read!, home] },
    env: { HOME: home },
  });
  assert.equal(r.code, 0, r.stderr);
  const results = events(r.stdout).filter((e) => e.type === "tool_result");
  assert.deepEqual(results.map((e) => e.is_error), [false, false], r.stdout);

  const reqs = ws.fake.turnRequests();
  assert.match(systemText(reqs[0]), /release-notes/);
  assert.match(systemText(reqs[0]), new RegExp(`${home}/skills/release/SKILL.md`));

  const [image, research] = toolMessages(reqs[2]).map((m) => String(m.content));
  assert.equal(image, "[image omitted: image/png, 27.0 KiB; not viewable here]");
  assert.match(research, /^# Research Report: tides/);
  // Not one piece of the image's base64 went to the model as text.
  const sent = JSON.stringify(reqs);
  const b64 = btoa(String.fromCharCode(...png.subarray(0, 300)));
  assert.ok(!sent.includes(b64.slice(20, 80)), "base64 of the image reached the model");
});
