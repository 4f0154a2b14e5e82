import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { WebSocketChannelConnection, pickWebSocketProtocol } from "./websocket-channels.js";

describe("pickWebSocketProtocol", () => {
  it("takes the client's first supported offer; none offered is the unversioned binary protocol; none supported is undefined", () => {
    expect(pickWebSocketProtocol(["v5.channel.k8s.io", "v4.channel.k8s.io"])).toBe("v5.channel.k8s.io");
    expect(pickWebSocketProtocol(["v9.channel.k8s.io", "v4.base64.channel.k8s.io"])).toBe("v4.base64.channel.k8s.io");
    expect(pickWebSocketProtocol([])).toBe("");
    expect(pickWebSocketProtocol(["SPDY/3.1+portforward.k8s.io"])).toBeUndefined();
  });
});

describe("WebSocketChannelConnection (real WebSocket pair on loopback)", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  async function pair(protocol: string, open: number[]): Promise<{ server: WebSocketChannelConnection; client: WebSocket }> {
    const http = createServer();
    const wss = new WebSocketServer({ server: http, handleProtocols: () => protocol || false });
    const accepted = new Promise<WebSocketChannelConnection>((resolve) => wss.on("connection", (ws) => resolve(new WebSocketChannelConnection(ws, protocol, open))));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
    const client = new WebSocket(`ws://127.0.0.1:${String((http.address() as AddressInfo).port)}/`, protocol ? [protocol] : []);
    cleanups.push(() => {
      client.terminate();
      wss.close();
      http.close();
    });
    await new Promise<void>((r, j) => {
      client.once("open", () => r());
      client.once("error", j);
    });
    return { server: await accepted, client };
  }

  function collect(stream: NodeJS.ReadableStream): Promise<string> {
    return new Promise((resolve) => {
      let text = "";
      stream.on("data", (d: Buffer) => (text += d.toString()));
      stream.on("end", () => resolve(text));
    });
  }

  it("v5: routes input by channel, drops unknown channels and empty messages, ends a channel on the close signal", async () => {
    const { server, client } = await pair("v5.channel.k8s.io", [0, 4]);
    const stdin = collect(server.channel(0));
    client.send(Buffer.from([]));
    client.send(Buffer.from([9, 65, 66]));
    client.send(Buffer.concat([Buffer.from([0]), Buffer.from("abc")]));
    client.send(Buffer.from([255]));
    client.send(Buffer.from([255, 0]));
    expect(await stdin).toBe("abc");
  });

  it("v4.base64: writes text messages (channel digit + base64) and ignores binary input", async () => {
    const { server, client } = await pair("v4.base64.channel.k8s.io", [0, 1]);
    const got = new Promise<{ data: string; isBinary: boolean }>((resolve) => client.once("message", (d: Buffer, isBinary: boolean) => resolve({ data: d.toString(), isBinary })));
    await server.send(1, Buffer.from("hi\n"));
    expect(await got).toEqual({ data: `1${Buffer.from("hi\n").toString("base64")}`, isBinary: false });
    const stdin = collect(server.channel(0));
    client.send(Buffer.from([0, 1, 2]), { binary: true });
    client.send(`0${Buffer.from("typed").toString("base64")}`);
    client.send("0!!not base64!!");
    client.close();
    expect(await stdin).toMatch(/^typed/);
  });

  it("v4 has no close signal: a [255, 0] message is dropped, and the client closing ends every channel", async () => {
    const { server, client } = await pair("v4.channel.k8s.io", [0]);
    const stdin = collect(server.channel(0));
    let closed = false;
    server.onClose(() => (closed = true));
    client.send(Buffer.from([255, 0]));
    client.send(Buffer.concat([Buffer.from([0]), Buffer.from("still open")]));
    client.close();
    expect(await stdin).toBe("still open");
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
  });
});
