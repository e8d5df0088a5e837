/**
 * SHA-256 of a text as hex, synchronously. node:crypto would do it, but importing it
 * loads Node's stream and process layer (~15 ms of every start, measured); WebCrypto's
 * digest is async, and short ids are computed in sync code. @noble/hashes is pure
 * JavaScript and loads in well under a millisecond.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
