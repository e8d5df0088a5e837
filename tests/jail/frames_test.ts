/** The supervisor's frames, however the pipe splits them; anything malformed ends the reading. */
import assert from "node:assert/strict";
import { type Frame, FrameError, readFrames } from "../../src/jail/frames.ts";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
}

const enc = (s: string) => new TextEncoder().encode(s);

async function all(chunks: Uint8Array[]): Promise<Frame[]> {
  return await Array.fromAsync(readFrames(streamOf(chunks)));
}

Deno.test("frames: headers and raw bodies, split at every byte", async () => {
  const body = new Uint8Array([0, 10, 255, 123, 10]); // binary, with newlines and a brace
  const whole = new Uint8Array([
    ...enc('{"t":"ready"}\n{"t":"started","id":1,"pid":7}\n'),
    ...enc(`{"t":"out","id":1,"fd":1,"n":${body.length}}\n`),
    ...body,
    ...enc('{"t":"eof","id":1,"fd":1}\n{"t":"exit","id":1,"code":0,"signal":null}\n'),
  ]);
  const singleBytes = [...whole].map((b) => new Uint8Array([b]));
  for (const chunks of [[whole], singleBytes]) {
    const frames = await all(chunks);
    assert.deepEqual(frames.map((f) => f.t), ["ready", "started", "out", "eof", "exit"]);
    const out = frames[2] as Extract<Frame, { t: "out" }>;
    assert.deepEqual([...out.data], [...body]);
  }
});

Deno.test("frames: garbage, unknown kinds, huge sizes and cut frames are errors", async () => {
  const cases = [
    "not json\n",
    '{"t":"launch","id":1}\n',
    '{"t":"out","id":1,"fd":3,"n":1}\nx',
    `{"t":"out","id":1,"fd":1,"n":${2 ** 30}}\n`,
    '{"t":"exit","id":-1,"code":0,"signal":null}\n',
    '{"t":"out","id":1,"fd":1,"n":10}\nshort',
    '{"t":"ready"}',
    "x".repeat(5000),
  ];
  for (const text of cases) {
    await assert.rejects(all([enc(text)]), FrameError, JSON.stringify(text.slice(0, 40)));
  }
});
