import { describe, expect, it } from "vitest";
import { nodeAgentStreamPath, parseStreamOptions } from "./pod-stream-proxy.js";
import { formatUpgradeRequestHead } from "./upgrade-proxy.js";

describe("pods/exec, pods/attach, pods/portforward options", () => {
  it("decodes PodExecOptions with 1.23's defaults (stdout and stderr on)", () => {
    expect(parseStreamOptions("exec", new URLSearchParams("command=sh&command=-c&command=echo%20hi&stdin=true&tty=1&container=main"))).toEqual({
      container: "main",
      command: ["sh", "-c", "echo hi"],
      stdin: true,
      stdout: true,
      stderr: true,
      tty: true,
      ports: [],
    });
    expect(parseStreamOptions("attach", new URLSearchParams("stdout=false&stderr=False"))).toMatchObject({ stdin: false, stdout: false, stderr: false, command: [] });
  });

  it("decodes booleans as every 1.23 query boolean (false only for 0/false) and refuses a port that does not decode with 400", () => {
    expect(parseStreamOptions("exec", new URLSearchParams("stdin=yes&tty=FALSE&stdout=0"))).toMatchObject({ stdin: true, tty: false, stdout: false });
    expect(() => parseStreamOptions("portforward", new URLSearchParams("ports=80,x"))).toThrow(/invalid port "x"/);
    expect(() => parseStreamOptions("portforward", new URLSearchParams("ports=70000"))).toThrow(/invalid port/);
  });

  it("builds the node agent path as 1.23's streamParams", () => {
    const o = parseStreamOptions("exec", new URLSearchParams("command=ls&command=-l&stdin=true&stdout=true&stderr=false&tty=false"));
    expect(nodeAgentStreamPath("exec", "default", "box", "main", o)).toBe("/exec/default/box/main?input=1&output=1&command=ls&command=-l");
    const pf = parseStreamOptions("portforward", new URLSearchParams("ports=8080&ports=9090"));
    expect(nodeAgentStreamPath("portforward", "ns 1", "box", "", pf)).toBe("/portForward/ns%201/box?port=8080%2C9090");
    expect(nodeAgentStreamPath("portforward", "d", "box", "", parseStreamOptions("portforward", new URLSearchParams()))).toBe("/portForward/d/box");
  });

  it("forwards the upgrade headers but never the client's credentials", () => {
    const head = formatUpgradeRequestHead(
      {
        method: "POST",
        rawHeaders: ["Authorization", "Bearer secret", "Connection", "Upgrade", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version", "v4.channel.k8s.io", "Impersonate-User", "bob", "Host", "a:1", "Content-Length", "0"],
        socket: { remoteAddress: "10.0.0.9" } as never,
      },
      "/exec/d/p/c?output=1",
      "127.0.0.1:10250",
    );
    expect(head).toBe(
      "POST /exec/d/p/c?output=1 HTTP/1.1\r\nHost: 127.0.0.1:10250\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nX-Forwarded-For: 10.0.0.9\r\n\r\n",
    );
  });
});
