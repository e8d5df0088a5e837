/**
 * Preload for third-party MCP servers in tests (Deno `--preload`, Node `--import`):
 * servers that listen on all interfaces are made to listen on 127.0.0.1 only, and
 * each bound address is announced on stderr as `MCP_LOOPBACK_LISTENING host:port`
 * (so `PORT=0` works even when the server itself only logs the port it was given).
 */
import net from "node:net";
import http from "node:http";
import dns from "node:dns";
import process from "node:process";

// Node resolves a listen host with dns.lookup, which answers on a later tick; code
// that reads server.address() right after listen(0) then finds null. Answering the
// loopback literal at once keeps listen() as synchronous as it is without a host.
const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  const cb = typeof options === "function" ? options : callback;
  const all = typeof options === "object" && options?.all;
  if (hostname === "127.0.0.1" && typeof cb === "function") {
    return all ? cb(null, [{ address: hostname, family: 4 }]) : cb(null, hostname, 4);
  }
  return lookup.apply(this, arguments);
};

function isPort(value) {
  return typeof value === "number" || (typeof value === "string" && /^\d+$/.test(value));
}

function patch(proto) {
  const original = proto.listen;
  if (original.__mcpLoopback) return;
  const listen = function (...args) {
    if (isPort(args[0]) && typeof args[1] !== "string") {
      args.splice(1, 0, "127.0.0.1");
    } else if (args.length === 0 || typeof args[0] === "function") {
      args.unshift(0, "127.0.0.1");
    } else if (args[0] && typeof args[0] === "object" && !args[0].path && !args[0].host) {
      args[0] = { ...args[0], host: "127.0.0.1" };
    }
    this.once("listening", () => {
      const address = this.address();
      if (address && typeof address === "object") {
        process.stderr.write(`MCP_LOOPBACK_LISTENING ${address.address}:${address.port}\n`);
      }
    });
    return original.apply(this, args);
  };
  listen.__mcpLoopback = true;
  proto.listen = listen;
}

patch(net.Server.prototype);
if (http.Server.prototype.listen !== net.Server.prototype.listen) patch(http.Server.prototype);
