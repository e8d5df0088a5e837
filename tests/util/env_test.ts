import assert from "node:assert/strict";
import { readEnv } from "../../src/util/env.ts";

Deno.test({
  name: "readEnv: a granted variable is read, one not granted is unset (no error, no prompt)",
  permissions: { env: ["MOPAC_TEST_READ_ENV"] },
  fn() {
    Deno.env.set("MOPAC_TEST_READ_ENV", "value");
    try {
      assert.equal(readEnv("MOPAC_TEST_READ_ENV"), "value");
      assert.equal(readEnv("HOME"), undefined);
      assert.equal(readEnv("MOPAC_TEST_READ_ENV_UNSET"), undefined);
    } finally {
      Deno.env.delete("MOPAC_TEST_READ_ENV");
    }
  },
});
