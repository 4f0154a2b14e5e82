import { connect } from "node:net";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerGoClientError } from "./client-error.js";

const app = Fastify({ logger: false, clientErrorHandler: answerGoClientError });
app.get("/ok", async () => "ok");
let port = 0;
beforeAll(async () => {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
});
afterAll(async () => {
  await app.close();
});

/** Writes `bytes` on a fresh connection; resolves with everything the server sent before closing. */
function raw(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let out = "";
    socket.on("data", (d: Buffer) => (out += d.toString("latin1")));
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
  });
}

describe("answerGoClientError", () => {
  it("answers a request line Node cannot parse (a raw non-ASCII byte) as Go's server does, and closes", async () => {
    const out = await raw(Buffer.concat([Buffer.from("HEAD /"), Buffer.from([0xfc]), Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n")]));
    expect(out).toBe("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request");
  });

  it("answers garbage as 400 and oversized headers as 431, in Go's words", async () => {
    expect(await raw(Buffer.from("NOT HTTP AT ALL\r\n\r\n"))).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\n400 Bad Request$/);
    const big = await raw(Buffer.from(`GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`));
    expect(big).toBe("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large");
  });

  it("leaves well-formed requests alone", async () => {
    expect(await raw(Buffer.from("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))).toMatch(/^HTTP\/1\.1 200 OK[^]*\r\n\r\nok$/);
  });
});
