import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256Hex } from "../../src/util/sha256.ts";

Deno.test("sha256Hex: the standard vector, and node:crypto's digest for any text", () => {
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  for (
    const text of [
      "",
      "01a2352a-aa73-7137-865e-a3ba53a66bfb",
      "mcp\u00e9\u{1F600}",
      "x".repeat(1000),
    ]
  ) {
    assert.equal(sha256Hex(text), createHash("sha256").update(text).digest("hex"), text);
  }
});
