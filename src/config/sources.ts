/** The lines `config show --sources` prints for what an untrusted project narrows. */
import type { JsonPath } from "./jsonc.ts";
import type { LimitCaps, Narrowing } from "./narrowing.ts";

export function narrowingSources(
  perFile: ReadonlyArray<{ file: string; narrowing: Narrowing }>,
): Array<{ path: JsonPath; source: string; note: string }> {
  const out: Array<{ path: JsonPath; source: string; note: string }> = [];
  for (const { file, narrowing } of perFile) {
    const line = (path: JsonPath, note: string) =>
      out.push({ path, source: file, note: `untrusted project: ${note}` });
    const caps = (prefix: JsonPath, limits: LimitCaps, what: string) => {
      for (const [key, value] of Object.entries(limits)) {
        line([...prefix, key], `caps ${what} at ${value}`);
      }
    };
    narrowing.allowed_tools.forEach((list) =>
      line(["permissions", "allowed_tools"], `narrows every profile to ${list.join(", ")}`)
    );
    caps(["limits"], narrowing.limits, "every limit");
    for (const [name, p] of Object.entries(narrowing.agents)) {
      const at = ["agents", name];
      p.allowed_tools.forEach((list) =>
        line([...at, "allowed_tools"], `narrows the profile to ${list.join(", ")}`)
      );
      if (p.bash_deny.length > 0) line([...at, "bash", "deny"], `adds ${p.bash_deny.join(", ")}`);
      if (p.bash_network_none) line([...at, "bash", "network"], "no network for jailed commands");
      if (p.paths_deny.length > 0) {
        line([...at, "paths", "deny"], `adds ${p.paths_deny.join(", ")}`);
      }
      caps(at, p.limits, "the profile's limit");
    }
  }
  return out;
}
