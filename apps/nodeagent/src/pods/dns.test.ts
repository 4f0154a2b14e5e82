import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { DNSConfigError, DNSConfigurer, formatResolvConf, mergeDNSOptions, nodenameForKernel, parseResolvConf, type DNSConfigurerOptions, type PodNetworkSpec } from "./dns.js";

// Tables from pkg/kubelet/network/dns/dns_test.go (kubernetes/kubernetes v1.23).

function configurer(o: Partial<DNSConfigurerOptions> = {}): { c: DNSConfigurer; events: string[] } {
  const events: string[] = [];
  const c = new DNSConfigurer({ clusterDNS: [], clusterDomain: "TEST", resolvConf: "", onEvent: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`), ...o });
  return { c, events };
}

function pod(spec: Partial<PodNetworkSpec> = {}, name = "test_pod", namespace = "testNS"): Pod {
  return { metadata: { name, namespace, uid: "" }, spec: { containers: [], ...spec } as Pod["spec"] & object };
}

describe("parseResolvConf", () => {
  const cases: Array<[string, string[], string[], string[], boolean]> = [
    ["", [], [], [], false],
    [" ", [], [], [], false],
    ["\n", [], [], [], false],
    ["\t\n\t", [], [], [], false],
    ["#comment\n", [], [], [], false],
    [" #comment\n", [], [], [], false],
    ["#comment\n#comment", [], [], [], false],
    ["#comment\nnameserver", [], [], [], true],
    ["#comment\nnameserver\nsearch", [], [], [], true],
    ["#comment\nnameserver 1.2.3.4\nsearch", ["1.2.3.4"], [], [], false],
    ["nameserver 1.2.3.4", ["1.2.3.4"], [], [], false],
    [" nameserver 1.2.3.4", ["1.2.3.4"], [], [], false],
    ["\tnameserver 1.2.3.4", ["1.2.3.4"], [], [], false],
    ["nameserver\t1.2.3.4", ["1.2.3.4"], [], [], false],
    ["nameserver \t 1.2.3.4", ["1.2.3.4"], [], [], false],
    ["nameserver 1.2.3.4\nnameserver 5.6.7.8", ["1.2.3.4", "5.6.7.8"], [], [], false],
    ["nameserver 1.2.3.4 #comment", ["1.2.3.4"], [], [], false],
    ["search ", [], [], [], false],
    ["search foo", [], ["foo"], [], false],
    ["search foo bar", [], ["foo", "bar"], [], false],
    ["search foo. bar", [], ["foo", "bar"], [], false],
    ["search foo bar bat\n", [], ["foo", "bar", "bat"], [], false],
    ["search foo\nsearch bar", [], ["bar"], [], false],
    ["nameserver 1.2.3.4\nsearch foo bar", ["1.2.3.4"], ["foo", "bar"], [], false],
    ["nameserver 1.2.3.4\nsearch foo\nnameserver 5.6.7.8\nsearch bar", ["1.2.3.4", "5.6.7.8"], ["bar"], [], false],
    ["#comment\nnameserver 1.2.3.4\n#comment\nsearch foo\ncomment", ["1.2.3.4"], ["foo"], [], false],
    ["options ", [], [], [], false],
    ["options ndots:5 attempts:2", [], [], ["ndots:5", "attempts:2"], false],
    ["options ndots:1\noptions ndots:5 attempts:3", [], [], ["ndots:5", "attempts:3"], false],
    ["nameserver 1.2.3.4\nsearch foo\nnameserver 5.6.7.8\nsearch bar\noptions ndots:5 attempts:4", ["1.2.3.4", "5.6.7.8"], ["bar"], ["ndots:5", "attempts:4"], false],
  ];
  it.each(cases)("parses %j", (data, nameservers, searches, options, isErr) => {
    const r = parseResolvConf(data);
    if (isErr) {
      expect(r.errors.length).toBeGreaterThan(0);
      return;
    }
    expect(r.errors).toEqual([]);
    expect(r.nameservers).toEqual(nameservers);
    expect(r.searches).toEqual(searches);
    expect(r.options).toEqual(options);
  });
});

describe("formDNSSearchFitsLimits", () => {
  const list2048 = ["A".repeat(128), ...Array.from({ length: 15 }, () => "A".repeat(127))];
  const numbered = (n: number) => ["testNS.svc.TEST", "svc.TEST", "TEST", ...Array.from({ length: n - 3 }, (_, i) => String(i + 4))];
  const forming = (line: string) => `Warning DNSConfigForming Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${line}`;
  const cases: Array<{ desc: string; hostNames: string[]; result: string[]; events: string[]; expanded?: boolean }> = [
    { desc: "valid: 3 search paths", hostNames: ["testNS.svc.TEST", "svc.TEST", "TEST"], result: ["testNS.svc.TEST", "svc.TEST", "TEST"], events: [] },
    { desc: "valid: 5 search paths", hostNames: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"], result: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"], events: [] },
    {
      desc: "invalid: longer than 256 characters in search path list",
      hostNames: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "B".repeat(256), "BBB"],
      result: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"],
      events: [forming("testNS.svc.TEST svc.TEST TEST AAA BBB")],
    },
    { desc: "valid ExpandedDNSConfig: 2048 characters in search path list", hostNames: list2048, result: list2048, events: [], expanded: true },
    { desc: "invalid ExpandedDNSConfig: 2050 characters in search path list", hostNames: [...list2048, "B"], result: list2048, events: [forming(list2048.join(" "))], expanded: true },
    {
      desc: "invalid ExpandedDNSConfig: 256 characters search path",
      hostNames: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "B".repeat(256), "BBB"],
      result: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"],
      events: [forming("testNS.svc.TEST svc.TEST TEST AAA BBB")],
      expanded: true,
    },
    {
      desc: "invalid: 7 search paths",
      hostNames: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB", "CCC", "DDD"],
      result: ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB", "CCC"],
      events: [forming("testNS.svc.TEST svc.TEST TEST AAA BBB CCC")],
    },
    { desc: "valid ExpandedDNSConfig: 32 search paths", hostNames: numbered(32), result: numbered(32), events: [], expanded: true },
    { desc: "invalid ExpandedDNSConfig: 33 search paths", hostNames: numbered(33), result: numbered(32), events: [forming(numbered(32).join(" "))], expanded: true },
  ];
  it.each(cases)("$desc", ({ hostNames, result, events, expanded }) => {
    expect(list2048.join(" ").length).toBe(2048);
    const { c, events: got } = configurer({ expandedDNSConfig: expanded === true });
    expect(c.formDNSSearchFitsLimits(hostNames, pod())).toEqual(result);
    expect(got).toEqual(events);
  });
});

describe("formDNSNameserversFitsLimits", () => {
  it.each([
    { desc: "valid: 1 nameserver", in: ["127.0.0.1"], out: ["127.0.0.1"], event: false },
    { desc: "valid: 3 nameservers", in: ["127.0.0.1", "10.0.0.10", "8.8.8.8"], out: ["127.0.0.1", "10.0.0.10", "8.8.8.8"], event: false },
    { desc: "invalid: 4 nameservers, trimmed to 3", in: ["127.0.0.1", "10.0.0.10", "8.8.8.8", "1.2.3.4"], out: ["127.0.0.1", "10.0.0.10", "8.8.8.8"], event: true },
  ])("$desc", (tc) => {
    const { c, events } = configurer();
    expect(c.formDNSNameserversFitsLimits(tc.in, pod())).toEqual(tc.out);
    expect(events).toEqual(tc.event ? ["Warning DNSConfigForming Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 127.0.0.1 10.0.0.10 8.8.8.8"] : []);
  });
});

describe("mergeDNSOptions", () => {
  it.each([
    { desc: "Empty dnsConfigOptions", existing: ["ndots:5", "debug"], pod: undefined, expected: ["ndots:5", "debug"] },
    { desc: "No duplicated entries", existing: ["ndots:5", "debug"], pod: [{ name: "single-request" }, { name: "attempts", value: "3" }], expected: ["ndots:5", "debug", "single-request", "attempts:3"] },
    {
      desc: "Overwrite duplicated entries",
      existing: ["ndots:5", "debug"],
      pod: [{ name: "ndots", value: "3" }, { name: "debug" }, { name: "single-request" }, { name: "attempts", value: "3" }],
      expected: ["ndots:3", "debug", "single-request", "attempts:3"],
    },
  ])("$desc", (tc) => {
    expect(mergeDNSOptions(tc.existing, tc.pod)).toEqual(tc.expected);
  });
});

describe("getPodDNS", () => {
  const clusterNS = "203.0.113.1";
  const hostPods = (policy: NonNullable<PodNetworkSpec["dnsPolicy"]>, hostNetwork = true) => pod({ dnsPolicy: policy, hostNetwork }, "pod0", "");
  it.each([false, true])("follows dnsPolicy without a resolver file (ExpandedDNSConfig %s)", (expanded) => {
    const { c } = configurer({ clusterDNS: [clusterNS], clusterDomain: "kubernetes.io", resolvConf: "", expandedDNSConfig: expanded });
    const first = c.getPodDNS(hostPods("ClusterFirstWithHostNet"));
    expect(first.servers).toEqual([clusterNS]);
    expect(first.searches[0]).toBe(".svc.kubernetes.io");
    const hostNet = c.getPodDNS(hostPods("ClusterFirst"));
    expect(hostNet.servers).toEqual(["127.0.0.1"]);
    expect(hostNet.searches).toEqual(["."]);
    expect(c.getPodDNS(hostPods("ClusterFirst", false)).servers).toEqual([clusterNS]);
    const def = c.getPodDNS(hostPods("Default"));
    expect(def.servers).toEqual(["127.0.0.1"]);
    expect(def.searches).toEqual(["."]);
  });

  it("prepends the cluster domains to the resolver file's searches, within the limits", () => {
    const host = "nameserver 8.8.8.8\nsearch a.example b.example c.example d.example\n";
    const { c, events } = configurer({ clusterDNS: [clusterNS], clusterDomain: "kubernetes.io", resolvConf: "/etc/resolv.conf", readFile: () => host });
    const dns = c.getPodDNS(hostPods("ClusterFirstWithHostNet"));
    expect(dns.servers).toEqual([clusterNS]);
    expect(dns.searches).toEqual([".svc.kubernetes.io", "svc.kubernetes.io", "kubernetes.io", "a.example", "b.example", "c.example"]);
    expect(dns.options).toEqual(["ndots:5"]);
    expect(events).toEqual(["Warning DNSConfigForming Search Line limits were exceeded, some search paths have been omitted, the applied search line is: .svc.kubernetes.io svc.kubernetes.io kubernetes.io a.example b.example c.example"]);
  });

  describe("custom (TestGetPodDNSCustom)", () => {
    const { c } = configurer({ clusterDNS: ["10.0.0.10"], clusterDomain: "kubernetes.io", resolvConf: "/tmp/resolv", readFile: () => "nameserver 8.8.8.8\nsearch host.domain\n" });
    const withConfig = { nameservers: ["10.0.0.11"], searches: ["my.domain"], options: [{ name: "ndots", value: "3" }, { name: "debug" }] };
    it.each([
      { desc: "DNSNone without DNSConfig should have empty DNS settings", spec: { dnsPolicy: "None" as const }, expected: { servers: [], searches: [], options: [] } },
      {
        desc: "DNSNone with DNSConfig should have a merged DNS settings",
        spec: { dnsPolicy: "None" as const, dnsConfig: { nameservers: ["203.0.113.1"], searches: ["my.domain", "second.domain"], options: [{ name: "ndots", value: "3" }, { name: "debug" }] } },
        expected: { servers: ["203.0.113.1"], searches: ["my.domain", "second.domain"], options: ["ndots:3", "debug"] },
      },
      {
        desc: "DNSClusterFirst with DNSConfig should have a merged DNS settings",
        spec: { dnsPolicy: "ClusterFirst" as const, dnsConfig: withConfig },
        expected: { servers: ["10.0.0.10", "10.0.0.11"], searches: ["testNS.svc.kubernetes.io", "svc.kubernetes.io", "kubernetes.io", "host.domain", "my.domain"], options: ["ndots:3", "debug"] },
      },
      {
        desc: "DNSClusterFirstWithHostNet with DNSConfig should have a merged DNS settings",
        spec: { hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" as const, dnsConfig: withConfig },
        expected: { servers: ["10.0.0.10", "10.0.0.11"], searches: ["testNS.svc.kubernetes.io", "svc.kubernetes.io", "kubernetes.io", "host.domain", "my.domain"], options: ["ndots:3", "debug"] },
      },
      {
        desc: "DNSDefault with DNSConfig should have a merged DNS settings",
        spec: { dnsPolicy: "Default" as const, dnsConfig: withConfig },
        expected: { servers: ["8.8.8.8", "10.0.0.11"], searches: ["host.domain", "my.domain"], options: ["ndots:3", "debug"] },
      },
    ])("$desc", ({ spec, expected }) => {
      expect(c.getPodDNS(pod(spec))).toEqual(expected);
    });
  });

  it("falls back to Default with MissingClusterDNS when no cluster DNS is configured", () => {
    const { c, events } = configurer({ clusterDNS: [], clusterDomain: "cluster.local", resolvConf: "/r", readFile: () => "nameserver 9.9.9.9\nsearch corp\noptions edns0\n" });
    const p = pod({ dnsPolicy: "ClusterFirst" }, "web", "default");
    p.metadata = { ...p.metadata, uid: "u1" };
    expect(c.getPodDNS(p)).toEqual({ servers: ["9.9.9.9"], searches: ["corp"], options: ["edns0"] });
    expect(events).toEqual([`Warning MissingClusterDNS pod: "web_default(u1)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`]);
  });

  it("uses ::1 per IPv6 node IP when --resolv-conf is empty", () => {
    const { c } = configurer({ resolvConf: "", nodeIPs: ["10.0.0.1", "fd00::1"] });
    expect(c.getPodDNS(pod({ dnsPolicy: "Default" })).servers).toEqual(["127.0.0.1", "::1"]);
  });

  it("refuses an unreadable or malformed resolver file", () => {
    const missing = configurer({ resolvConf: "/nope", readFile: () => { throw new Error("open /nope: no such file or directory"); } }).c;
    expect(() => missing.getPodDNS(pod({ dnsPolicy: "Default" }))).toThrow(DNSConfigError);
    const bad = configurer({ resolvConf: "/bad", readFile: () => "nameserver\n" }).c;
    expect(() => bad.getPodDNS(pod({ dnsPolicy: "Default" }))).toThrow("nameserver list is empty");
  });
});

describe("host names", () => {
  const { c } = configurer({ clusterDomain: "cluster.local" });
  it("uses spec.hostname, else the pod name cut to 63 characters without a trailing - or .", () => {
    expect(c.generatePodHostNameAndDomain(pod({}, "web-0", "ns"))).toEqual({ hostname: "web-0", domain: "" });
    expect(c.generatePodHostNameAndDomain(pod({ hostname: "h", subdomain: "s" }, "web-0", "ns"))).toEqual({ hostname: "h", domain: "s.ns.svc.cluster.local" });
    const long = `${"a".repeat(62)}-.b`;
    expect(c.generatePodHostNameAndDomain(pod({}, long, "ns")).hostname).toBe("a".repeat(62));
    expect(() => c.generatePodHostNameAndDomain(pod({ hostname: "Bad_Name" }))).toThrow('pod Hostname "Bad_Name" is not a valid DNS label');
  });
  it("gives the FQDN as kernel host name with setHostnameAsFQDN", () => {
    expect(nodenameForKernel("h", "s.ns.svc.cluster.local", true)).toBe("h.s.ns.svc.cluster.local");
    expect(nodenameForKernel("h", "s.ns.svc.cluster.local", false)).toBe("h");
    expect(() => nodenameForKernel("h".repeat(40), "s".repeat(30), true)).toThrow("is too long (64 characters is the max, 71 characters requested)");
  });
});

describe("formatResolvConf", () => {
  it("writes search, nameserver and options lines as containerd does", () => {
    expect(formatResolvConf({ servers: ["10.0.0.10", "10.0.0.11"], searches: ["a", "b"], options: ["ndots:5"] })).toBe("search a b\nnameserver 10.0.0.10\nnameserver 10.0.0.11\noptions ndots:5\n");
    expect(formatResolvConf({})).toBe("");
  });
});

describe("checkLimitsForResolvConf", () => {
  it("warns about a resolver file whose search line leaves no room for the cluster domains", () => {
    const file = "search a b c d\n";
    expect(configurer({ resolvConf: "/r", clusterDomain: "cluster.local", readFile: () => file }).c.checkLimitsForResolvConf()).toBe("Resolv.conf file '/r' contains search line consisting of more than 3 domains!");
    expect(configurer({ resolvConf: "/r", clusterDomain: "", readFile: () => file }).c.checkLimitsForResolvConf()).toBeUndefined();
    expect(configurer({ resolvConf: "/r", clusterDomain: "", readFile: () => `search ${"a".repeat(254)}\n` }).c.checkLimitsForResolvConf()).toBe('Resolv.conf file "/r" contains a search path which length is more than allowed 253 chars!');
    expect(configurer({ resolvConf: "" }).c.checkLimitsForResolvConf()).toBeUndefined();
  });
});
