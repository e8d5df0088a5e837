/** mopac's version, from deno.json (embedded by `deno compile` as a JSON module). */
import denoJson from "../../deno.json" with { type: "json" };

export const VERSION: string = denoJson.version;
