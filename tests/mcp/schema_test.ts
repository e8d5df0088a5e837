import assert from "node:assert/strict";
import { normalizeInputSchema } from "../../src/mcp/schema.ts";

Deno.test("a zod-generated schema loses $schema and keeps the rest", () => {
  const input = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { text: { type: "string", description: "what to echo" } },
    required: ["text"],
    additionalProperties: false,
  };
  assert.deepEqual(normalizeInputSchema(input), {
    type: "object",
    properties: { text: { type: "string", description: "what to echo" } },
    required: ["text"],
    additionalProperties: false,
  });
});

Deno.test("missing, empty or non-object schemas become an empty object schema", () => {
  for (const input of [undefined, null, "x", [], {}, { type: "object" }]) {
    assert.deepEqual(normalizeInputSchema(input), { type: "object", properties: {} });
  }
});

Deno.test("a top-level oneOf/anyOf is merged: union of properties, common required", () => {
  const input = {
    oneOf: [
      {
        type: "object",
        properties: { id: { type: "number" }, a: { type: "string" } },
        required: ["id", "a"],
      },
      {
        type: "object",
        properties: { id: { type: "number" }, b: { type: "string" } },
        required: ["id"],
      },
    ],
  };
  assert.deepEqual(normalizeInputSchema(input), {
    type: "object",
    properties: { id: { type: "number" }, a: { type: "string" }, b: { type: "string" } },
    required: ["id"],
  });
  const any = normalizeInputSchema({
    type: "object",
    anyOf: [{ required: ["x"] }, { required: ["y"] }],
    properties: { x: {}, y: {} },
  });
  assert.deepEqual(any, { type: "object", properties: { x: {}, y: {} } });
});

Deno.test("a top-level allOf is merged with all requirements", () => {
  const input = {
    allOf: [
      { properties: { a: { type: "string" } }, required: ["a"] },
      { properties: { b: { type: "integer" } }, required: ["b"] },
    ],
  };
  assert.deepEqual(normalizeInputSchema(input), {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "integer" } },
    required: ["a", "b"],
  });
});

Deno.test("top-level enum/not/const are dropped; required names that do not exist are dropped", () => {
  const out = normalizeInputSchema({
    type: ["object", "null"],
    enum: [{}],
    not: {},
    required: ["ghost"],
    properties: { a: {} },
  });
  assert.deepEqual(out, { type: "object", properties: { a: {} } });
});

Deno.test("nested arrays get items and bare nested objects get properties; $defs stay", () => {
  const input = {
    type: "object",
    $defs: { Tag: { type: "string" } },
    properties: {
      tags: { type: "array" },
      meta: { type: "object" },
      free: { type: "object", additionalProperties: { type: "string" } },
      nested: { type: "array", items: { type: "object", properties: { list: { type: "array" } } } },
      ref: { $ref: "#/$defs/Tag" },
    },
  };
  assert.deepEqual(normalizeInputSchema(input), {
    type: "object",
    $defs: { Tag: { type: "string" } },
    properties: {
      tags: { type: "array", items: {} },
      meta: { type: "object", properties: {} },
      free: { type: "object", additionalProperties: { type: "string" } },
      nested: {
        type: "array",
        items: { type: "object", properties: { list: { type: "array", items: {} } } },
      },
      ref: { $ref: "#/$defs/Tag" },
    },
  });
});

Deno.test("the input object is not modified", () => {
  const input = { $schema: "x", type: "object", properties: { a: { type: "array" } } };
  const copy = structuredClone(input);
  normalizeInputSchema(input);
  assert.deepEqual(input, copy);
});
