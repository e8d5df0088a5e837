/**
 * export_listing.ts against real bash: random values (quotes, backslashes, `$`, control
 * characters, newlines, non-ASCII) exported through the environment come back exactly
 * from `export -p`, in bash's default and POSIX modes and in the C and UTF-8 locales;
 * what is not a plain exported variable is skipped; text that is not a listing is
 * refused as a whole.
 */
import assert from "node:assert/strict";
import { parseExportListing } from "../../src/tools/shell/export_listing.ts";

async function bashListing(script: string, env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

const PIECES = [
  ..."abcXYZ019 _-=.,:/@%+~#!?*[]{}()<>|&;",
  '"',
  "'",
  "\\",
  "$",
  "`",
  "\n",
  "\t",
  "\r",
  "\x01",
  "\x1b",
  "\x7f",
  "é",
  "✓",
  "😀",
  "\\n",
  "$'",
  '\\"',
  "declare -x FAKE=1\n",
];

/** A deterministic pseudo-random source, so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

function randomValue(next: () => number): string {
  const n = Math.floor(next() * 12);
  return Array.from({ length: n }, () => PIECES[Math.floor(next() * PIECES.length)]).join("");
}

for (const locale of [{}, { LANG: "C.UTF-8", LC_ALL: "C.UTF-8" }] as Record<string, string>[]) {
  for (const posix of [false, true]) {
    const label = `${"LANG" in locale ? "UTF-8" : "C"} locale${posix ? ", POSIX mode" : ""}`;
    Deno.test(`export -p round trip: 300 random values, ${label}`, async () => {
      const next = random(posix ? 7 : 3);
      const values: Record<string, string> = {};
      for (let i = 0; i < 300; i++) values[`V${i}`] = randomValue(next);
      const listing = await bashListing(
        `${posix ? "set -o posix; " : ""}builtin export -p`,
        { ...locale, ...values },
      );
      const parsed = parseExportListing(listing);
      assert.ok(parsed, `the listing did not read:\n${listing.slice(0, 400)}`);
      for (const [name, value] of Object.entries(values)) {
        assert.equal(parsed[name], value, `${name} = ${JSON.stringify(value)}`);
      }
      assert.equal(parsed.FAKE, undefined, "a value's text is never an entry");
    });
  }
}

Deno.test("export -p: arrays, namerefs and names without a value are skipped", async () => {
  const listing = await bashListing(
    "export PLAIN=1 EMPTY=; declare -a arr=(1 ')' $'x\\ny'); export arr; " +
      "declare -A map=([k]=v); export map; export NOVALUE; declare -n ref=PLAIN; export ref; " +
      "export CTRL=$'\\a\\b\\e\\f\\v\\001'; builtin export -p",
    {},
  );
  const parsed = parseExportListing(listing);
  assert.ok(parsed, listing);
  assert.equal(parsed.PLAIN, "1");
  assert.equal(parsed.EMPTY, "");
  assert.equal(parsed.CTRL, "\x07\b\x1b\f\v\x01");
  for (const name of ["arr", "map", "NOVALUE", "ref"]) assert.equal(parsed[name], undefined, name);
});

Deno.test("export -p in POSIX mode: arrays and namerefs are skipped there too", async () => {
  const listing = await bashListing(
    "set -o posix; export PLAIN=1; declare -a arr=(1 ')'); export arr; declare -A map=([k]=v); " +
      "export map; declare -n ref=PLAIN; export ref; builtin export -p",
    {},
  );
  const parsed = parseExportListing(listing);
  assert.ok(parsed, listing);
  assert.equal(parsed.PLAIN, "1");
  for (const name of ["arr", "map", "ref"]) assert.equal(parsed[name], undefined, name);
});

Deno.test("export -p: a value of megabytes with characters that need $'…' reads back", async () => {
  const listing = await bashListing(
    `export BIG="$(printf 'a%.0s' {1..300000})"$'\\n'"$(printf '\\x01é%.0s' {1..1000})"; builtin export -p`,
    { LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
  );
  const parsed = parseExportListing(listing);
  assert.ok(parsed);
  assert.equal(parsed.BIG, "a".repeat(300_000) + "\n" + "\x01é".repeat(1000));
});

Deno.test("names that are not identifiers are skipped, not the listing", async () => {
  const listing = await bashListing("builtin export -p", { "foo.bar": "x", GOOD: "1" });
  const parsed = parseExportListing(listing);
  assert.ok(parsed, listing);
  assert.equal(parsed.GOOD, "1");
  assert.equal(parsed["foo.bar"], undefined);
  assert.deepEqual(parseExportListing('declare -x foo.bar="x"\ndeclare -x A="1"\n'), { A: "1" });
});

Deno.test("a text that is not an export listing is refused as a whole", () => {
  assert.deepEqual(parseExportListing(""), {});
  assert.deepEqual(parseExportListing('declare -x A="1"\nexport B="2"\n'), { A: "1", B: "2" });
  for (
    const bad of [
      "hello",
      'declare -x A="unterminated',
      "declare -x A=$'\\q'",
      'declare -x A="x" trailing',
      'declare -x A="x"\nsomething else',
      "declare -x A=(unclosed",
    ]
  ) {
    assert.equal(parseExportListing(bad), undefined, JSON.stringify(bad));
  }
});
