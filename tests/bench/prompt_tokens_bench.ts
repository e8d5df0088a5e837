/**
 * Token counts (o200k_base, the tokenizer of GPT-4o and later) of what the model is
 * told on the first request: the system text and the tools array as sent, for the
 * default `coder` profile, `readonly`, and `coder` with `--output-schema`. Printed,
 * not asserted; the golden files (tests/e2e/golden/) hold the exact text.
 * Run: deno run --allow-all tests/bench/prompt_tokens_bench.ts
 * (`--runs N`, which `deno task bench -- --runs N` passes to every benchmark, is taken and
 * said to change nothing: the counts are exact.)
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { captureFirstRequest } from "../e2e/_first_request.ts";
import { runsFrom } from "./_runs.ts";

if (Deno.args.length > 0) {
  runsFrom(Deno.args, "prompt_tokens_bench", 1);
  console.log("prompt_tokens_bench: token counts are exact; --runs changes nothing here");
}

const SCHEMA = JSON.stringify({
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] } },
  required: ["verdict"],
});

const cases: Array<[string, string[]]> = [
  ["coder", []],
  ["readonly", ["--agent", "readonly"]],
  ["coder --output-schema", ["--output-schema", "schema.json"]],
];

console.log("case                    system  tools(json)  tools  total");
for (const [label, flags] of cases) {
  const { requests: [raw] } = await captureFirstRequest(flags, {
    files: { "schema.json": SCHEMA },
  });
  const system = raw.messages.filter((m) => m.role === "system").map((m) => String(m.content))
    .join("\n\n");
  const s = encode(system).length;
  const t = encode(JSON.stringify(raw.tools ?? [])).length;
  const n = raw.tools?.length ?? 0;
  console.log(
    `${label.padEnd(22)} ${String(s).padStart(7)} ${String(t).padStart(12)} ${
      String(n).padStart(6)
    } ${String(s + t).padStart(6)}`,
  );
}
