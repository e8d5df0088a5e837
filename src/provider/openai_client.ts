/**
 * Builds the npm:openai client for one attempt. The SDK is imported lazily so
 * `mopac --version` and config errors never pay for loading it. Every option the
 * SDK would otherwise read from the environment is passed explicitly, so the
 * client needs no `--allow-env` and never picks up a stray `OPENAI_*` variable.
 */
import type { OpenAI } from "openai";
import type { ResolvedModel } from "../catalog/types.ts";

let sdk: Promise<typeof import("openai")> | undefined;

/** A key the SDK accepts for keyless local servers; the header itself is removed. */
const NO_KEY = "no-key";

export async function makeClient(model: ResolvedModel, fetchImpl: typeof fetch): Promise<OpenAI> {
  sdk ??= import("openai");
  const { OpenAI } = await sdk;
  return new OpenAI({
    apiKey: model.api_key || NO_KEY,
    baseURL: model.base_url,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    fetch: fetchImpl,
    // mopac retries itself (retry.ts), so streamed failures are covered too.
    maxRetries: 0,
    logLevel: "off",
    defaultHeaders: model.api_key ? undefined : { Authorization: null },
  });
}
