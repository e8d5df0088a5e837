/** The hosts-mode allowlist and the addresses a name may not lead to. */
import assert from "node:assert/strict";
import { HostAllowlist, isForbiddenAddress } from "../../src/jail/hosts.ts";

Deno.test("hosts: exact names, ports, wildcard subdomains and IP literals", () => {
  const a = new HostAllowlist([
    "registry.npmjs.org",
    "Pypi.org:443",
    "*.example.com",
    "127.0.0.1:4873",
    "[::1]:8080",
  ]);
  assert.ok(a.allows("registry.npmjs.org", 443));
  assert.ok(a.allows("REGISTRY.npmjs.org.", 80), "case and a trailing dot do not matter");
  assert.ok(a.allows("pypi.org", 443));
  assert.ok(!a.allows("pypi.org", 80), "a listed port is the only port");
  assert.ok(a.allows("a.example.com", 443) && a.allows("a.b.example.com", 1));
  assert.ok(!a.allows("example.com", 443), "a wildcard is not the apex");
  assert.ok(!a.allows("evilexample.com", 443));
  assert.ok(!a.allows("registry.npmjs.org.evil.com", 443));
  assert.ok(a.allows("127.0.0.1", 4873) && !a.allows("127.0.0.1", 4874));
  assert.ok(a.allows("::1", 8080) && a.allows("[::1]", 8080));
  assert.ok(!new HostAllowlist([]).allows("registry.npmjs.org", 443));
});

Deno.test("hosts: loopback, link-local, metadata and unspecified addresses are forbidden", () => {
  for (
    const addr of [
      "127.0.0.1",
      "127.5.6.7",
      "0.0.0.0",
      "169.254.169.254",
      "169.254.1.1",
      "100.100.100.200",
      "::1",
      "::",
      "fe80::1",
      "FEBF::1",
      "fd00:ec2::254",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
    ]
  ) assert.ok(isForbiddenAddress(addr), addr);
  for (const addr of ["104.16.0.1", "10.0.0.1", "192.168.1.1", "2606:4700::1", "fec0::1"]) {
    assert.ok(!isForbiddenAddress(addr), addr);
  }
});

Deno.test("hosts: a name resolving to a forbidden address passes only when listed by that address", () => {
  const byName = new HostAllowlist(["localhost:4873", "registry.example"]);
  assert.ok(byName.allows("localhost", 4873));
  assert.ok(!byName.addressAllowed("localhost", "127.0.0.1"), "a name is not an address");
  assert.ok(!byName.addressAllowed("registry.example", "169.254.169.254"), "DNS rebinding");
  assert.ok(byName.addressAllowed("registry.example", "104.16.0.1"));
  const byAddress = new HostAllowlist(["127.0.0.1:4873"]);
  assert.ok(byAddress.addressAllowed("127.0.0.1", "127.0.0.1"));
  assert.ok(!new HostAllowlist(["*.internal"]).addressAllowed("x.internal", "127.0.0.1"));
});
