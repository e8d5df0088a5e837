/**
 * Addresses `fetch` must not reach unless the operator lists them by address:
 * loopback, private and shared ranges, link-local (where cloud metadata services
 * live: 169.254.169.254, fd00:ec2::254), multicast, reserved and documentation
 * ranges, and IPv6 forms that carry an IPv4 address inside (mapped, NAT64, 6to4,
 * Teredo). Checked on the address a connection actually reached, after DNS.
 */

/** Names that always mean this machine or a metadata service, whatever DNS says. */
const LOCAL_NAMES =
  /^(localhost|.*\.localhost|metadata|metadata\.google\.internal|instance-data(\.ec2\.internal)?)\.?$/i;

export function isLocalName(host: string): boolean {
  return LOCAL_NAMES.test(host);
}

/** IPv4 ranges as [first octets as a 32-bit number, prefix length]. */
const V4_BLOCKED: Array<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
  // Azure's wire server and metadata endpoint: a public address with the same role.
  ["168.63.129.16", 32],
];

function v4Number(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    return undefined;
  }
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function v4Blocked(n: number): boolean {
  return V4_BLOCKED.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = v4Number(base)!;
    return n >= start && n < start + size;
  });
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail is converted). */
function v6Groups(ip: string): number[] | undefined {
  let text = ip.toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = v4Number(v4[1]);
    if (n === undefined) return undefined;
    text = text.slice(0, -v4[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => parseInt(g, 16));
}

function v6Blocked(g: number[]): boolean {
  const embedded = (hi: number, lo: number) => v4Blocked(hi * 65536 + lo);
  if (g.slice(0, 7).every((x) => x === 0)) return true; // :: and ::1
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return embedded(g[6], g[7]);
  if (g.slice(0, 6).every((x) => x === 0)) return embedded(g[6], g[7]); // IPv4-compatible
  if (g[0] === 0x64 && g[1] === 0xff9b) return g[2] === 1 || embedded(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return embedded(g[1], g[2]); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return true; // Teredo
  if (g[0] === 0x2001 && g[1] === 0xdb8) return true; // documentation
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return true; // discard
  if ((g[0] & 0xfe00) === 0xfc00) return true; // unique local (fd00:ec2::254 too)
  if ((g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0) return true; // link/site-local
  return (g[0] & 0xff00) === 0xff00; // multicast
}

/** True for an address fetch refuses unless it is listed by address; false for public ones. */
export function isPrivateAddress(ip: string): boolean {
  const n = v4Number(ip);
  if (n !== undefined) return v4Blocked(n);
  const g = v6Groups(ip);
  return g === undefined ? true : v6Blocked(g);
}

/** The same address however it is written (`::1`, `[0:0::1]`; `127.0.0.1`). */
export function canonicalAddress(ip: string): string | undefined {
  if (v4Number(ip) !== undefined) return ip;
  return v6Groups(ip)?.map((x) => x.toString(16)).join(":");
}
