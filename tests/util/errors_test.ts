import assert from "node:assert/strict";
import * as runErrors from "../../src/util/errors.ts";
import { ProviderError } from "../../src/provider/errors.ts";

// A minified build renames classes, so an error's name cannot come from its class:
// each one spells it out. One that forgets inherits its parent's name, and fails here.
Deno.test("every run-ending error class names itself (the name survives a minified build)", () => {
  type AnyError = new (...args: unknown[]) => Error;
  const exported: unknown[] = [...Object.values(runErrors), ProviderError];
  const classes = exported.filter((v): v is AnyError =>
    typeof v === "function" &&
    (v === runErrors.MopacError || v.prototype instanceof runErrors.MopacError)
  );
  assert.ok(classes.length >= 13, `found ${classes.length} classes`);
  for (const cls of classes) {
    const err = new cls("x", "y");
    assert.equal(err.name, cls.name);
    assert.equal(String(err).split(":")[0], cls.name);
  }
});
