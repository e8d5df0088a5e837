/** Loads `--output-schema FILE` and checks final answers against it with Ajv. */
import { resolve } from "node:path";
import { Ajv } from "ajv";
import type { AnswerVerdict } from "../agent/types.ts";
import { answerFormatSection, extractJson } from "../agent/answer_check.ts";
import { UsageError } from "../util/errors.ts";

export interface OutputSchema {
  /** The system prompt section telling the model the format. */
  section: string;
  check(text: string): AnswerVerdict;
}

export async function loadOutputSchema(file: string, cwd: string): Promise<OutputSchema> {
  const path = resolve(cwd, file);
  let schema: unknown;
  try {
    schema = JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) throw err;
    throw new UsageError(`--output-schema ${file}: ${(err as Error).message}`, {
      hint: "pass a file holding a JSON Schema",
    });
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  let validate;
  try {
    validate = ajv.compile(schema as object);
  } catch (err) {
    throw new UsageError(
      `--output-schema ${file} is not a valid JSON Schema: ${(err as Error).message}`,
    );
  }
  return {
    section: answerFormatSection(schema),
    check(text) {
      const parsed = extractJson(text);
      if (!parsed.ok) return parsed;
      if (validate(parsed.value)) return parsed;
      const problems = (validate.errors ?? [])
        .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`)
        .join("; ");
      return { ok: false, problem: problems };
    },
  };
}
