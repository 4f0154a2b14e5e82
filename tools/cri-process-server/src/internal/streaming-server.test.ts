import { describe, expect, it } from "vitest";
import { exitStatus, negotiateProtocol, parseTerminalSizes, shellQuote, terminalCommand } from "./streaming-server.js";

describe("streaming server helpers", () => {
  it("reports an exit as the Status kubectl reads on the error stream", () => {
    expect(exitStatus(0, ["true"])).toEqual({ metadata: {}, status: "Success" });
    expect(exitStatus(3, ["sh", "-c", "exit 3"])).toEqual({
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "3" }] },
    });
  });

  it("picks the first protocol of the client's list that the server speaks", () => {
    expect(negotiateProtocol(["v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io"], ["v4.channel.k8s.io"])).toBe("v4.channel.k8s.io");
    expect(negotiateProtocol("v5.channel.k8s.io, v4.channel.k8s.io", ["v4.channel.k8s.io"])).toBe("v4.channel.k8s.io");
    expect(negotiateProtocol("channel.k8s.io", ["v4.channel.k8s.io"])).toBeUndefined();
    expect(negotiateProtocol(undefined, ["portforward.k8s.io"])).toBeUndefined();
  });

  it("quotes a command for script -c", () => {
    expect(shellQuote(["sh", "-c", "echo 'hi'; exit 3"])).toBe(`sh -c 'echo '\\''hi'\\''; exit 3'`);
    expect(shellQuote(["ls", "/tmp/a-b_c.txt"])).toBe("ls /tmp/a-b_c.txt");
  });

  it("sets the first terminal size before the command, quoting the command's words", () => {
    expect(terminalCommand(["sh", "-c", "stty size; echo x"], { width: 101, height: 41 })).toBe("stty rows 41 cols 101 2>/dev/null; sh -c 'stty size; echo x'");
    expect(terminalCommand(["sh"], undefined)).toBe("sh");
  });

  it("splits the resize stream into terminal sizes", () => {
    expect(parseTerminalSizes('{"Width":80,"Height":24}{"Width":100,"Hei')).toEqual({ sizes: [{ width: 80, height: 24 }], rest: '{"Width":100,"Hei' });
    expect(parseTerminalSizes('{"Width":100,"Height":41}\n{"bogus":1}{"Width":-1,"Height":2}').sizes).toEqual([{ width: 100, height: 41 }]);
  });
});
