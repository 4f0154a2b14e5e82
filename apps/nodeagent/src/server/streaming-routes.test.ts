import { describe, expect, it } from "vitest";
import { parsePortForwardPorts, parseStreamingPath, parseStreamOptions } from "./streaming-routes.js";
import { formatStreamingRequestHead } from "./upgrade.js";

describe("streaming request parsing", () => {
  it("splits exec/attach and portForward paths, with or without the pod UID", () => {
    expect(parseStreamingPath("default/web/app", true)).toEqual({ namespace: "default", podName: "web", podUID: "", containerName: "app" });
    expect(parseStreamingPath("default/web/u1/app", true)).toEqual({ namespace: "default", podName: "web", podUID: "u1", containerName: "app" });
    expect(parseStreamingPath("default/web", false)).toEqual({ namespace: "default", podName: "web", podUID: "", containerName: "" });
    expect(parseStreamingPath("default/web/u1", false)).toMatchObject({ podUID: "u1" });
    expect(parseStreamingPath("default/web", true)).toBeUndefined();
    expect(parseStreamingPath("default//app", true)).toBeUndefined();
    expect(parseStreamingPath("default/%zz/app", true)).toBeUndefined();
  });

  it("reads the kubelet's stream flags and drops stderr with a tty", () => {
    expect(parseStreamOptions(new URLSearchParams("input=1&output=1&error=1&tty=1"))).toEqual({ ok: true, value: { stdin: true, stdout: true, stderr: false, tty: true } });
    expect(parseStreamOptions(new URLSearchParams("output=true"))).toEqual({ ok: false, message: "you must specify at least 1 of stdin, stdout, stderr" });
  });

  it("reads port-forward ports", () => {
    expect(parsePortForwardPorts(new URLSearchParams("port=80,8080&port=9090"))).toEqual({ ok: true, value: [80, 8080, 9090] });
    expect(parsePortForwardPorts(new URLSearchParams("port=0"))).toMatchObject({ ok: false });
  });

  it("sends the runtime the client's upgrade headers at the runtime's path, without credentials", () => {
    const head = formatStreamingRequestHead({ method: "GET", rawHeaders: ["Authorization", "Bearer t", "Upgrade", "websocket", "Sec-WebSocket-Protocol", "v5.channel.k8s.io", "Host", "x"] }, new URL("http://127.0.0.1:3456/exec/AbC?x=1"));
    expect(head).toBe("GET /exec/AbC?x=1 HTTP/1.1\r\nHost: 127.0.0.1:3456\r\nUpgrade: websocket\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n");
  });
});
