import { describe, expect, it } from "vitest";
import { listensBeyondLoopback, procIPv4Hex } from "./netns-dial.js";

const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0
   2: 0500FB0A:1F92 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 100 0 0 10 0
   3: 0500FB0A:1F93 0600FB0A:C000 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0000000000000000 100 0 0 10 0
`;

describe("port-forward dial choice", () => {
  it("prints an IPv4 address as /proc/net/tcp does", () => {
    expect(procIPv4Hex("127.0.0.1")).toBe("0100007F");
    expect(procIPv4Hex("10.251.0.5")).toBe("0500FB0A");
    expect(procIPv4Hex("nope")).toBe("");
  });

  it("dials the pod IP only for listeners on every address or on the pod IP; loopback-only listeners are dialled inside the namespace", () => {
    expect(listensBeyondLoopback(tcp, 8080, "0500FB0A")).toBe(true);
    expect(listensBeyondLoopback(tcp, 8082, "0500FB0A")).toBe(true);
    expect(listensBeyondLoopback(tcp, 8081, "0500FB0A")).toBe(false);
    // An established connection is not a listener.
    expect(listensBeyondLoopback(tcp, 8083, "0500FB0A")).toBe(false);
    expect(listensBeyondLoopback(tcp, 9999, "0500FB0A")).toBe(false);
  });
});
