import { describe, expect, it } from "vitest";
import { identityOf, sandboxNotApplied, wrapWithIdentity } from "./identity.js";

type SC = Parameters<typeof identityOf>[0];
const sc = (v: Record<string, unknown>): SC => v as unknown as SC;
const root = { uid: 0, gid: 0 };

describe("identityOf", () => {
  it("reads user, group, groups and no_new_privs; lists what a process cannot get", () => {
    const r = identityOf(sc({ runAsUser: { value: "1000" }, runAsGroup: { value: "2000" }, supplementalGroups: ["4000", "3000"], noNewPrivs: true, capabilities: { addCapabilities: [], dropCapabilities: ["ALL"] }, seccomp: { profileType: "RuntimeDefault" }, apparmorProfile: "runtime/default" }), root);
    expect(r).toEqual({ identity: { uid: 1000, gid: 2000, groups: [4000, 3000], noNewPrivs: true }, notApplied: ["capabilities", "seccomp", "apparmor"] });
  });

  it("accepts an empty context and the node agent's defaults (unconfined seccomp, no capabilities)", () => {
    expect(identityOf(null, { uid: 1000, gid: 1000 })).toEqual({ identity: { groups: [], noNewPrivs: false }, notApplied: [] });
    expect(identityOf(sc({ seccomp: { profileType: "Unconfined" }, seccompProfilePath: "", maskedPaths: ["/proc/kcore"], runAsUsername: "" }), root).notApplied).toEqual([]);
  });

  it("refuses run_as_username and a foreign uid when not root", () => {
    expect(identityOf(sc({ runAsUsername: "nobody" }), root).error).toMatch(/^run_as_username "nobody" is not supported by the process runtime/);
    const user = { uid: 1001, gid: 1001 };
    expect(identityOf(sc({ runAsUser: { value: "1000" } }), user).error).toBe(
      "changing the user or groups (run_as_user 1000, run_as_group -, supplemental_groups []) needs the process runtime to run as root (it runs as uid 1001)",
    );
    expect(identityOf(sc({ runAsUser: { value: "1001" }, noNewPrivs: true }), user)).toEqual({ identity: { groups: [], noNewPrivs: true }, notApplied: [] });
  });

  it("changes nothing for the server's own user (the image user the process runtime reports)", () => {
    expect(identityOf(sc({ runAsUser: { value: "0" } }), root).identity).toEqual({ groups: [], noNewPrivs: false });
  });
});

describe("wrapWithIdentity", () => {
  it("prefixes setpriv only when something changes", () => {
    expect(wrapWithIdentity(["sh", "-c", "x"], { groups: [], noNewPrivs: false })).toEqual(["sh", "-c", "x"]);
    expect(wrapWithIdentity(["true"], { uid: 5, groups: [], noNewPrivs: false })).toEqual(["setpriv", "--reuid=5", "--regid=0", "--clear-groups", "--", "true"]);
    expect(wrapWithIdentity(["true"], { uid: 5, gid: 6, groups: [7, 8], noNewPrivs: true })).toEqual(["setpriv", "--reuid=5", "--regid=6", "--groups=7,8", "--no-new-privs", "--", "true"]);
    expect(wrapWithIdentity(["true"], { groups: [], noNewPrivs: true })).toEqual(["setpriv", "--no-new-privs", "--", "true"]);
  });
});

describe("sandboxNotApplied", () => {
  it("names sysctls", () => {
    expect(sandboxNotApplied(null)).toEqual([]);
    expect(sandboxNotApplied({ sysctls: { "kernel.msgmax": "1" } } as never)).toEqual(["sysctls"]);
  });
});
