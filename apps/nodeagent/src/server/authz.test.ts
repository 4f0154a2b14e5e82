import { describe, it, expect, vi } from "vitest";
import { createAuthorizer, formatForbiddenMessage, formatAuthorizationErrorMessage, formatSubjectAccessReviewSpec, getRequestAttributes } from "./authz.js";
import type { SubjectAccessReviewStatus } from "./server-options.js";

const user = { name: "alice", groups: ["dev", "system:authenticated"] };

describe("getRequestAttributes", () => {
  it.each([
    ["GET", "/pods", "get", "proxy"],
    ["POST", "/manifests", "create", "proxy"],
    ["DELETE", "/manifests/default/p", "delete", "proxy"],
    ["PUT", "/x", "update", "proxy"],
    ["PATCH", "/x", "patch", "proxy"],
    ["HEAD", "/pods", "", "proxy"],
    ["GET", "/stats", "get", "stats"],
    ["GET", "/stats/summary", "get", "stats"],
    ["GET", "/statsx", "get", "proxy"],
    ["GET", "/metrics", "get", "metrics"],
    ["GET", "/metrics/cadvisor", "get", "metrics"],
    ["GET", "/logs/", "get", "log"],
    ["GET", "/logs", "get", "log"],
    ["GET", "/logs/syslog", "get", "log"],
    ["GET", "/spec/", "get", "spec"],
    ["GET", "/configz", "get", "proxy"],
    ["GET", "/containerLogs/ns/p/c", "get", "proxy"],
  ])("%s %s → verb %j, subresource %s", (method, path, verb, subresource) => {
    const attrs = getRequestAttributes(user, method, path, "node-1");
    expect(attrs).toMatchObject({ verb, subresource, resource: "nodes", name: "node-1", apiVersion: "v1" });
  });

  it("formats the kubelet's messages and the review spec", () => {
    const attrs = getRequestAttributes(user, "GET", "/logs/", "node-1");
    expect(formatForbiddenMessage(attrs)).toBe("Forbidden (user=alice, verb=get, resource=nodes, subresource=log)");
    expect(formatAuthorizationErrorMessage(attrs)).toBe("Authorization error (user=alice, verb=get, resource=nodes, subresource=log)");
    expect(formatSubjectAccessReviewSpec(attrs)).toEqual({
      resourceAttributes: { verb: "get", version: "v1", resource: "nodes", subresource: "log", name: "node-1" },
      user: "alice",
      groups: ["dev", "system:authenticated"],
    });
  });
});

describe("createAuthorizer", () => {
  it("AlwaysAllow allows", async () => {
    const authz = createAuthorizer({ mode: "AlwaysAllow" }, Date.now);
    expect(await authz(getRequestAttributes(user, "DELETE", "/x", "n"))).toEqual({ kind: "allow" });
  });

  it("Webhook caches allowed and unallowed answers for their own TTLs, errors never", async () => {
    let now = 0;
    const review = vi.fn(async (spec: { resourceAttributes?: { verb?: string } }): Promise<SubjectAccessReviewStatus> => {
      if (spec.resourceAttributes?.verb === "get") return { allowed: true };
      if (spec.resourceAttributes?.verb === "delete") return { allowed: false, denied: true, reason: "no" };
      if (spec.resourceAttributes?.verb === "update") throw new Error("down");
      return { allowed: false };
    });
    const authz = createAuthorizer({ mode: "Webhook", review, cacheAuthorizedTTLMs: 100, cacheUnauthorizedTTLMs: 10 }, () => now);
    const get = getRequestAttributes(user, "GET", "/pods", "n");
    const del = getRequestAttributes(user, "DELETE", "/manifests/a/b", "n");
    const post = getRequestAttributes(user, "POST", "/manifests", "n");
    expect(await authz(get)).toEqual({ kind: "allow" });
    expect(await authz(del)).toEqual({ kind: "deny", reason: "no" });
    expect(await authz(post)).toEqual({ kind: "noOpinion", reason: "" });
    await authz(get);
    await authz(del);
    expect(review).toHaveBeenCalledTimes(3);
    now = 10;
    await authz(get);
    await authz(del);
    expect(review).toHaveBeenCalledTimes(4);
    now = 100;
    await authz(get);
    expect(review).toHaveBeenCalledTimes(5);
    const put = getRequestAttributes(user, "PUT", "/x", "n");
    await expect(authz(put)).rejects.toThrow("down");
    await expect(authz(put)).rejects.toThrow("down");
    expect(review).toHaveBeenCalledTimes(7);
  });
});
