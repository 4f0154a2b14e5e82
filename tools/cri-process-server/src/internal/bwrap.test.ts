import { describe, expect, it } from "vitest";
import { bwrapArgs, directoriesToRebuild, type HostFs } from "./bwrap.js";

// A host with /bin -> usr/bin, /etc/hosts, /usr/bin, /var/lib/x, /var/run -> /run, /run, /dev, /proc, /tmp.
const tree: Record<string, Array<{ name: string; symlink?: string }>> = {
  "/": [{ name: "bin", symlink: "usr/bin" }, { name: "dev" }, { name: "etc" }, { name: "proc" }, { name: "run" }, { name: "tmp" }, { name: "usr" }, { name: "var" }],
  "/etc": [{ name: "hosts" }],
  "/usr": [{ name: "bin" }],
  "/var": [{ name: "lib" }, { name: "run", symlink: "/run" }],
  "/var/lib": [{ name: "x" }],
  "/run": [],
};
const files = new Set(["/etc/hosts", "/usr/bin", "/var/lib/x", "/bin", "/dev", "/proc", "/tmp"]);
const fake: HostFs = {
  exists: (p) => p in tree || files.has(p) || p === "/var/run",
  list: (d) => tree[d],
  realpath: (p) => (p === "/var/run" ? "/run" : p === "/bin" ? "/usr/bin" : p),
  isDirectory: (p) => p in tree || p === "/usr/bin",
};

describe("directoriesToRebuild", () => {
  it("rebuilds the deepest existing ancestor of a missing mount point and its parents", () => {
    expect([...directoriesToRebuild(["/input", "/etc/hosts", "/var/lib/new/deep", "/dev/termination-log", "/tmp/x"], fake)].sort()).toEqual(["/", "/var", "/var/lib"]);
  });
  it("refuses a mount point under a file", () => {
    expect(() => directoriesToRebuild(["/etc/hosts/x"], fake)).toThrow("cannot create mount point /etc/hosts/x: /etc/hosts is not a directory");
  });
});

describe("bwrapArgs", () => {
  it("binds the host read-only around new mount points, then /dev, /proc, a private /tmp, the mounts and the working directory", () => {
    const args = bwrapArgs(
      { argv: ["sh"], cwd: "/work", hostname: "pod-a", rootReadonly: true, capabilities: ["CAP_CHOWN"], infoFd: 3, mounts: [{ containerPath: "/var/lib/new", hostPath: "/h/new", readonly: false }, { containerPath: "/input", hostPath: "/h/in", readonly: true }, { containerPath: "/var/run/sock", hostPath: "/h/s", readonly: false }] },
      fake,
    );
    expect(args.join(" ")).toBe(
      [
        "--die-with-parent --info-fd 3 --unshare-pid --as-pid-1 --unshare-uts --hostname pod-a --cap-drop ALL --cap-add CAP_CHOWN",
        "--symlink usr/bin /bin --ro-bind-try /etc /etc --dir /run --ro-bind-try /usr /usr",
        "--dir /var --dir /var/lib --ro-bind-try /var/lib/x /var/lib/x --symlink /run /var/run",
        "--dev /dev --proc /proc --tmpfs /tmp",
        "--ro-bind /h/in /input --bind /h/s /run/sock --bind /h/new /var/lib/new",
        "--dir /work --chdir /work --remount-ro /",
      ].join(" "),
    );
  });
  it("shares the host's UTS and PID namespaces when asked and binds read-write for privileged containers", () => {
    const args = bwrapArgs({ argv: ["sh"], cwd: "/", rootReadonly: false, hostPID: true, infoFd: 3, mounts: [] }, fake);
    expect(args.slice(0, 3)).toEqual(["--die-with-parent", "--info-fd", "3"]);
    expect(args).not.toContain("--unshare-uts");
    expect(args).not.toContain("--remount-ro");
    expect(args).toContain("--bind-try");
  });
});
