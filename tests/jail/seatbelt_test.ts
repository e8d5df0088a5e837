/**
 * The macOS profile, as text: sandbox-exec cannot run here, so what it would be
 * given is checked rule by rule (see the README's note on macOS).
 */
import assert from "node:assert/strict";
import { quote, seatbeltProfile } from "../../src/jail/seatbelt.ts";
import type { JailPlan } from "../../src/jail/types.ts";

const plan = (network: JailPlan["network"]): JailPlan => ({
  workspace: "/Users/me/ws",
  mounts: [
    { kind: "write", path: "/Users/me/ws" },
    { kind: "read-only", path: "/Users/me/ws/.mopac" },
    { kind: "read-only", path: "/Users/me/ws/.git/hooks" },
    { kind: "hide-dir", path: "/Users/me/.ssh" },
    { kind: "hide-file", path: "/Users/me/ws/.env" },
  ],
  network,
  cacheDir: "/Users/me/ws/.mopac/cache",
  notes: [],
});

const TMP = "/Users/me/ws/.mopac/tmp/abc";

Deno.test("seatbelt: deny by default, processes only their own sandbox", () => {
  const p = seatbeltProfile(plan({ mode: "none" }), { tmpDir: TMP });
  const lines = p.trim().split("\n");
  assert.equal(lines[0], "(version 1)");
  assert.equal(lines[1], "(deny default)");
  assert.ok(lines.includes("(allow process-info* (target same-sandbox))"));
  assert.ok(lines.includes("(allow signal (target same-sandbox))"));
  assert.ok(!p.includes("(allow network"), "no network at all in none mode");
});

Deno.test("seatbelt: writes only to the workspace, TMPDIR and the cache; read-only and hidden places after", () => {
  const p = seatbeltProfile(plan({ mode: "none" }), { tmpDir: TMP });
  const lines = p.trim().split("\n");
  const write = lines.findIndex((l) =>
    l.startsWith("(allow file-write*") && l.includes(`(subpath "/Users/me/ws")`)
  );
  assert.ok(write > 0 && lines[write].includes(`(subpath "${TMP}")`));
  const ro = lines.findIndex((l) => l.startsWith("(deny file-write*"));
  assert.ok(ro > write && lines[ro].includes('(subpath "/Users/me/ws/.git/hooks")'));
  const again = lines.findIndex((l, i) => i > ro && l.startsWith("(allow file-write*"));
  assert.ok(again > ro && lines[again].includes("/Users/me/ws/.mopac/cache"));
  const hidden = lines.findIndex((l) => l.startsWith("(deny file-read* file-write*"));
  assert.ok(hidden > again);
  assert.ok(lines[hidden].includes('(subpath "/Users/me/.ssh")'));
  assert.ok(lines[hidden].includes('(subpath "/Users/me/ws/.env")'));
  assert.ok(!lines.some((l) => l.startsWith("(allow file-write*") && l.includes('"/"')));
});

Deno.test("seatbelt: network none, all, or only the proxy's loopback port", () => {
  assert.match(seatbeltProfile(plan({ mode: "all" }), { tmpDir: TMP }), /^\(allow network\*\)$/m);
  const hosts = seatbeltProfile(plan({ mode: "hosts", hosts: ["a.example"] }), {
    tmpDir: TMP,
    proxyPort: 41234,
  });
  assert.match(hosts, /^\(allow network-outbound \(remote ip "localhost:41234"\)\)$/m);
  assert.doesNotMatch(hosts, /\(allow network\*\)/);
});

Deno.test("seatbelt: paths are quoted as SBPL strings", () => {
  assert.equal(quote('a "b" \\c'), '"a \\"b\\" \\\\c"');
});
