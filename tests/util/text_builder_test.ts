import assert from "node:assert/strict";
import { TextBuilder } from "../../src/util/text_builder.ts";

Deno.test("pieces come out in order, across many blocks, with their length", () => {
  const b = new TextBuilder("start:");
  let expected = "start:";
  for (let i = 0; i < 5000; i++) {
    const piece = i % 7 === 0 ? "" : `p${i};`;
    b.append(piece);
    expected += piece;
    // Reading in the middle changes nothing about what comes after.
    if (i % 997 === 0) assert.equal(b.toString(), expected);
  }
  assert.equal(b.length, expected.length);
  assert.equal(b.toString(), expected);
  assert.equal(b.toString(), expected);
});

Deno.test("an empty builder is the empty string", () => {
  assert.equal(new TextBuilder().toString(), "");
  assert.equal(new TextBuilder().length, 0);
});

Deno.test("reading after every append keeps working (blocks stay few)", () => {
  const b = new TextBuilder();
  let expected = "";
  for (let i = 0; i < 3000; i++) {
    b.append("abcd");
    expected += "abcd";
    assert.equal(b.toString().length, expected.length);
  }
  assert.equal(b.toString(), expected);
});
