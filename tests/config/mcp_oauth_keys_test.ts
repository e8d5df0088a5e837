/**
 * The OAuth keys of an `mcp.<name>` block: combinations that cannot work are errors at
 * the key (exit 2 with file:line:col), the secrets among them are redacted like any
 * other, and which flow a block means (oauthMode).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../../src/util/errors.ts";
import { runSecrets } from "../../src/secrets/sources.ts";
import { oauthMode } from "../../src/mcp/oauth/settings.ts";
import { makeSandbox } from "./_helpers.ts";

const http = (extra: Record<string, unknown>) =>
  JSON.stringify({ mcp: { s: { type: "http", url: "https://mcp.example/mcp", ...extra } } });

Deno.test("OAuth keys that cannot work together are errors at the key", async () => {
  const sb = await makeSandbox();
  try {
    const cases: [string, RegExp][] = [
      [
        JSON.stringify({ mcp: { s: { command: "x", oauth_client_id: "c" } } }),
        /mcp\.s\.oauth_client_id: OAuth applies to http and sse servers only/,
      ],
      [
        http({ oauth: false, oauth_scopes: ["a"] }),
        /oauth_scopes has no effect with "oauth": false/,
      ],
      [
        http({ oauth_grant: "client_credentials", oauth_client_id: "c" }),
        /exactly one of oauth_client_secret and oauth_private_key_file/,
      ],
      [
        http({ oauth_grant: "client_credentials", oauth_client_secret: "s" }),
        /client_credentials needs oauth_client_id/,
      ],
      [http({ oauth_private_key_file: "k.pem" }), /needs "oauth_grant": "client_credentials"/],
      [http({ oauth_client_metadata_url: "http://x/c.json" }), /must be an https URL with a path/],
      [http({ oauth_scopes: ["a b"] }), /a scope has no spaces/],
      [http({ oauth_callback_port: 70000 }), /oauth_callback_port/],
      [
        http({
          oauth_idp: {
            issuer: "https://idp",
            token_endpoint: "https://idp/t",
            client_id: "i",
            id_token: "t",
          },
        }),
        /cross-app access needs oauth_client_id and oauth_client_secret/,
      ],
      [
        http({ oauth_grant: "magic" }),
        /mcp\.s\.oauth_grant/,
      ],
    ];
    for (const [text, pattern] of cases) {
      const file = await sb.write(join(sb.repo, "mopac.json"), text);
      const err = await sb.load().then(() => undefined, (e) => e);
      assert.ok(err instanceof ConfigError, text);
      assert.match(err.message, pattern, text);
      assert.ok(err.message.startsWith(`${file}:1:`), err.message);
    }
  } finally {
    await sb.cleanup();
  }
});

Deno.test("OAuth secrets are redacted like other secrets; the flow follows the keys", async () => {
  const sb = await makeSandbox();
  try {
    sb.env.IDP_TOKEN = "eyJ-id-token-secret-1234";
    await sb.write(
      join(sb.repo, "mopac.json"),
      http({
        oauth_client_id: "xaa-client",
        oauth_client_secret: "client-secret-5678",
        oauth_idp: {
          issuer: "https://idp.example",
          token_endpoint: "https://idp.example/token",
          client_id: "idp-client",
          id_token: "$IDP_TOKEN",
        },
      }),
    );
    const loaded = await sb.load();
    const shown = JSON.stringify(runSecrets(loaded, []).redactValue(loaded.config));
    assert.ok(!shown.includes("client-secret-5678"));
    assert.ok(!shown.includes("eyJ-id-token-secret-1234"));
    assert.match(shown, /"oauth_client_id":"xaa-client"/);
    assert.equal(oauthMode(loaded.config.mcp!.s, "http"), "cross_app");
  } finally {
    await sb.cleanup();
  }
  assert.equal(oauthMode({}, "http"), "authorization_code");
  assert.equal(oauthMode({}, "stdio"), "off");
  assert.equal(oauthMode({ oauth: false }, "sse"), "off");
  // A static Authorization header means no OAuth, unless OAuth is asked for.
  assert.equal(oauthMode({ headers: { Authorization: "Bearer x" } }, "http"), "off");
  assert.equal(
    oauthMode({ headers: { authorization: "x" }, oauth: true }, "http"),
    "authorization_code",
  );
  assert.equal(
    oauthMode({ oauth_grant: "client_credentials", oauth_client_id: "c" }, "http"),
    "client_credentials",
  );
});
