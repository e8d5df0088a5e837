/**
 * Which hosts jailed commands may reach in `bash.network: {hosts: [...]}` mode, as
 * mopac's proxy decides them. Entries: `registry.npmjs.org` (any port),
 * `example.com:8080`, `*.example.com` (subdomains, not the apex), `127.0.0.1:4873`,
 * `[::1]:8080`. A name must also not lead to a loopback, link-local, unspecified or
 * cloud-metadata address (a DNS answer can point anywhere) unless the entry names
 * that address itself: the check is made on the address actually connected to.
 */

interface Entry {
  host: string;
  wildcard: boolean;
  port?: number;
}

export class HostAllowlist {
  readonly #entries: Entry[];

  constructor(readonly patterns: readonly string[]) {
    this.#entries = patterns.map(parseEntry).filter((e): e is Entry => e !== undefined);
  }

  /** The request names an allowed host and port. */
  allows(host: string, port: number): boolean {
    const h = normalHost(host);
    return this.#entries.some((e) =>
      (e.port === undefined || e.port === port) &&
      (e.wildcard ? h.endsWith(`.${e.host}`) : h === e.host)
    );
  }

  /** The address a connection reached is fine for a request to `host`. */
  addressAllowed(host: string, address: string): boolean {
    if (!isForbiddenAddress(address)) return true;
    // Only an entry that names this very address (an IP literal) lets it through.
    const h = normalHost(host);
    return h === normalHost(address) && this.#entries.some((e) => !e.wildcard && e.host === h);
  }
}

function parseEntry(pattern: string): Entry | undefined {
  const text = pattern.trim().toLowerCase();
  if (text === "") return undefined;
  const v6 = text.match(/^\[([^\]]+)\](?::(\d+))?$/);
  if (v6) return { host: v6[1], wildcard: false, port: v6[2] ? Number(v6[2]) : undefined };
  const m = text.match(/^(.*?)(?::(\d+))?$/)!;
  const host = m[1];
  const port = m[2] ? Number(m[2]) : undefined;
  if (host.startsWith("*.")) return { host: host.slice(2), wildcard: true, port };
  return { host, wildcard: false, port };
}

function normalHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/**
 * Loopback, link-local (the metadata services of AWS, GCP and Azure live at
 * 169.254.169.254), unspecified, Alibaba's 100.100.100.200 and AWS's IPv6
 * metadata address, also when written as IPv4-mapped IPv6.
 */
export function isForbiddenAddress(address: string): boolean {
  const a = normalHost(address);
  const mapped = a.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return isForbiddenAddress(mapped[1]);
  const v4 = a.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [o1, o2] = [Number(v4[1]), Number(v4[2])];
    return o1 === 127 || o1 === 0 || (o1 === 169 && o2 === 254) || a === "100.100.100.200";
  }
  if (!a.includes(":")) return false;
  if (a === "::1" || a === "::" || a === "0:0:0:0:0:0:0:1" || a === "0:0:0:0:0:0:0:0") return true;
  if (/^fe[89ab][0-9a-f]:/.test(a)) return true; // fe80::/10
  return a === "fd00:ec2::254";
}
