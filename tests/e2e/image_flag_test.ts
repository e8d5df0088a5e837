/**
 * `-i FILE` end to end: the image reaches the model as an image_url part of the user
 * message and is kept in the session; a model without attachment support, or a file
 * that is no image, is exit 2 naming the model or the file, before any request.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { scriptText } from "../_support/fake_openai.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

const encodeBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

async function withAttachments(ws: Workspace, on: boolean) {
  const config = JSON.parse(await Deno.readTextFile(`${ws.dir}/mopac.json`));
  config.providers.fake.models[0].supports_attachments = on;
  await Deno.writeTextFile(`${ws.dir}/mopac.json`, JSON.stringify(config));
}

Deno.test("e2e -i: the image goes with the prompt as an image_url part, and into the session", async () => {
  await using ws = await workspace({ turns: [scriptText("a red dot")] });
  await withAttachments(ws, true);
  await Deno.writeFile(`${ws.dir}/shot.bin`, PNG);
  const r = await ws.run(["run", "-o", "json", "-i", "shot.bin", "what is this?"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ws.fake.rejected, []);
  const user = ws.fake.turnRequests()[0].messages.find((m) => m.role === "user")!;
  assert.deepEqual(user.content, [
    { type: "text", text: "what is this?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${encodeBase64(PNG)}` } },
  ]);
  const id = JSON.parse(r.stdout).session_id;
  const lines = (await Deno.readTextFile(`${ws.dir}/.mopac/sessions/${id}.jsonl`)).trim()
    .split("\n").map((l) => JSON.parse(l));
  const stored = lines.find((l) => l.type === "message" && l.message.role === "user").message;
  assert.deepEqual(stored.parts[1], {
    type: "image",
    mime_type: "image/png",
    data: encodeBase64(PNG),
  });
});

Deno.test("e2e -i: a model without attachment support or a file that is no image is exit 2", async () => {
  // The fake serves `other` too, listed without attachment support.
  await using ws = await workspace({
    models: ["fake-model", "other"],
    turns: [scriptText("never")],
  });
  await Deno.writeFile(`${ws.dir}/shot.png`, PNG);
  await Deno.writeTextFile(`${ws.dir}/notes.png`, "just text");
  let r = await ws.run(["run", "-i", "shot.png", "hi"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /-i: the model fake\/fake-model does not accept image attachments/);
  await withAttachments(ws, true);
  const cases: Array<[string[], RegExp]> = [
    [["-i", "notes.png"], /-i notes\.png: not a PNG, JPEG, GIF or WebP image/],
    [["-i", "missing.png"], /-i missing\.png: no such file/],
    [["-i", ""], /-i needs a value/],
    [
      ["-i", "shot.png", "--fallback-model", "fake/other"],
      /-i: the model fake\/other does not accept image attachments/,
    ],
  ];
  for (const [flags, message] of cases) {
    r = await ws.run(["run", ...flags, "hi"]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(ws.fake.requests.length, 0);
});
