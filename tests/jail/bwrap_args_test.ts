/** The bubblewrap argument list: namespaces, privileges and the order of mounts. */
import assert from "node:assert/strict";
import { bwrapArgs, namespaceArgs, PROXY_SOCKET_IN_JAIL } from "../../src/jail/bwrap.ts";
import type { JailPlan } from "../../src/jail/types.ts";

const plan = (over: Partial<JailPlan> = {}): JailPlan => ({
  workspace: "/tmp/ws",
  mounts: [
    { kind: "write", path: "/tmp/ws" },
    { kind: "read-only", path: "/tmp/ws/.mopac" },
    { kind: "read-only", path: "/tmp/ws/.git/hooks" },
    { kind: "write", path: "/tmp/ws/.mopac/cache" },
    { kind: "hide-dir", path: "/home/u/.ssh" },
    { kind: "hide-file", path: "/tmp/ws/.env" },
  ],
  network: { mode: "none" },
  cacheDir: "/tmp/ws/.mopac/cache",
  notes: [],
  ...over,
});

/** Index of `flag value…` in args. */
function at(args: string[], ...seq: string[]): number {
  for (let i = 0; i < args.length; i++) {
    if (seq.every((s, j) => args[i + j] === s)) return i;
  }
  return -1;
}

Deno.test("bwrap: every namespace is new, no capabilities, no user namespaces inside", () => {
  const args = namespaceArgs({ mode: "none" });
  for (const flag of ["--die-with-parent", "--new-session", "--unshare-all", "--unshare-user"]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.ok(at(args, "--cap-drop", "ALL") >= 0);
  assert.ok(args.includes("--disable-userns"));
  assert.ok(!args.includes("--share-net"));
  assert.ok(namespaceArgs({ mode: "all" }).includes("--share-net"));
  assert.ok(!namespaceArgs({ mode: "hosts", hosts: ["x"] }).includes("--share-net"));
});

Deno.test("bwrap: /tmp and /run are private before the workspace is bound under /tmp", () => {
  const args = bwrapArgs(plan());
  const tmp = at(args, "--tmpfs", "/tmp");
  const run = at(args, "--tmpfs", "/run");
  const root = at(args, "--ro-bind", "/", "/");
  const ws = at(args, "--bind-try", "/tmp/ws", "/tmp/ws");
  assert.ok(root >= 0 && root < tmp && tmp < ws && run < ws, args.join(" "));
  assert.ok(at(args, "--proc", "/proc") >= 0 && at(args, "--dev", "/dev") >= 0);
});

Deno.test("bwrap: read-only places come after the bind they sit in, hidden ones last", () => {
  const args = bwrapArgs(plan());
  const ws = at(args, "--bind-try", "/tmp/ws", "/tmp/ws");
  const data = at(args, "--ro-bind-try", "/tmp/ws/.mopac", "/tmp/ws/.mopac");
  const hooks = at(args, "--ro-bind-try", "/tmp/ws/.git/hooks", "/tmp/ws/.git/hooks");
  const cache = at(args, "--bind-try", "/tmp/ws/.mopac/cache", "/tmp/ws/.mopac/cache");
  const ssh = at(args, "--tmpfs", "/home/u/.ssh", "--remount-ro", "/home/u/.ssh");
  const env = at(args, "--ro-bind", "/dev/null", "/tmp/ws/.env");
  assert.ok(ws < data && data < hooks && hooks < cache && cache < ssh && ssh < env, args.join(" "));
  assert.deepEqual(args.slice(-2), ["--chdir", "/tmp/ws"]);
});

Deno.test("bwrap: the proxy's socket is mounted into the jail; executables under /tmp stay visible", () => {
  const args = bwrapArgs(plan({ network: { mode: "hosts", hosts: ["a.example"] } }), {
    proxySocket: "/data/run/p.sock",
    keep: ["/tmp/bin/deno", "/usr/bin/deno"],
  });
  assert.ok(at(args, "--ro-bind", "/data/run/p.sock", PROXY_SOCKET_IN_JAIL) >= 0);
  assert.ok(at(args, "--ro-bind", "/tmp/bin/deno", "/tmp/bin/deno") > at(args, "--tmpfs", "/tmp"));
  assert.equal(at(args, "--ro-bind", "/usr/bin/deno", "/usr/bin/deno"), -1);
});
