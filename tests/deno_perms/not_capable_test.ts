import assert from "node:assert/strict";
import { explainNotCapable, isNotCapable } from "../../src/deno_perms/not_capable.ts";
import { SandboxError } from "../../src/util/errors.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

Deno.test({
  name: "real NotCapable errors become SandboxErrors naming the flag with its value",
  permissions: { read: false, env: false, run: false, sys: false, net: false },
  async fn() {
    const cases: Array<[unknown, string]> = [
      [thrown(() => Deno.readTextFileSync("/etc/hostname")), "--allow-read=/etc/hostname"],
      [thrown(() => Deno.env.get("HOME")), "--allow-env=HOME"],
      [thrown(() => Deno.env.toObject()), "--allow-env"],
      [thrown(() => new Deno.Command("sh").outputSync()), "--allow-run=sh"],
      [thrown(() => Deno.hostname()), "--allow-sys=hostname"],
      [
        await Deno.connect({ hostname: "127.0.0.1", port: 9 }).catch((e) => e),
        "--allow-net=127.0.0.1:9",
      ],
    ];
    for (const [err, flag] of cases) {
      assert.ok(isNotCapable(err), String(err));
      const e = explainNotCapable(err);
      assert.ok(e instanceof SandboxError);
      assert.equal(e.flag, flag);
      assert.match(e.message, new RegExp(`\\(add ${flag.replace(/[.]/g, "\\.")}\\)$`));
      assert.equal(e.hint, `add ${flag} to the deno command line`);
      assert.equal(e.cause, err);
    }
    const read = explainNotCapable(cases[0][0]);
    assert.match(read.message, /do not let mopac read "\/etc\/hostname"/);
  },
});

Deno.test("messages without the usual shape still name a flag", () => {
  const ld = new Deno.errors.NotCapable(
    "Requires --allow-run permissions to spawn subprocess with LD_PRELOAD environment variable.",
  );
  assert.equal(explainNotCapable(ld).flag, "--allow-run");
  const all = new Deno.errors.NotCapable(
    'Requires all access to "/proc", run again with the --allow-all flag',
  );
  assert.equal(explainNotCapable(all).flag, "--allow-all");
  // Wrapped by a library: found through `cause`.
  const wrapped = new Error("request failed", {
    cause: new Deno.errors.NotCapable(
      'Requires net access to "litellm.internal:4000", run again with the --allow-net flag',
    ),
  });
  assert.ok(isNotCapable(wrapped));
  assert.equal(explainNotCapable(wrapped).flag, "--allow-net=litellm.internal:4000");
  assert.equal(isNotCapable(new Error("other")), false);
  assert.equal(isNotCapable("text"), false);
});
