import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStatusError } from "@skiff/apimachinery";
import { decodeProtobufReview } from "./protobuf-review.js";

// Minimal protobuf writer for test vectors (length-delimited fields only).
function field(n: number, value: Buffer | string): Buffer {
  const v = typeof value === "string" ? Buffer.from(value) : value;
  const varint = (x: number) => {
    const out: number[] = [];
    while (x > 0x7f) {
      out.push((x & 0x7f) | 0x80);
      x >>>= 7;
    }
    out.push(x);
    return Buffer.from(out);
  };
  return Buffer.concat([varint((n << 3) | 2), varint(v.length), v]);
}
const msg = (...parts: Buffer[]) => Buffer.concat(parts);
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from("k8s\0", "latin1"), field(1, msg(field(1, apiVersion), field(2, kind))), field(2, raw)]);

describe("decodeProtobufReview", () => {
  it("reads the SelfSubjectReview kubectl 1.32 sends (captured bytes)", () => {
    const body = Buffer.from(
      "6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a0032003800420012060a040a0012001a002200",
      "hex",
    );
    expect(decodeProtobufReview(body)).toEqual({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview", metadata: {} });
  });

  it("reads SelfSubjectAccessReview and SubjectAccessReview specs", () => {
    const ra = msg(field(1, "default"), field(2, "create"), field(3, "batch"), field(5, "jobs"), field(7, "pi"));
    expect(decodeProtobufReview(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", msg(field(1, Buffer.alloc(0)), field(2, field(1, ra)))))).toEqual({
      apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", metadata: {},
      spec: { resourceAttributes: { namespace: "default", verb: "create", group: "batch", resource: "jobs", name: "pi" } },
    });
    const spec = msg(field(2, msg(field(1, "/healthz"), field(2, "get"))), field(3, "bob"), field(4, "g1"), field(4, "g2"), field(6, "u1"));
    expect(decodeProtobufReview(envelope("authorization.k8s.io/v1", "SubjectAccessReview", field(2, spec)))["spec"]).toEqual({
      nonResourceAttributes: { path: "/healthz", verb: "get" }, user: "bob", uid: "u1", groups: ["g1", "g2"],
    });
    expect(decodeProtobufReview(envelope("authentication.k8s.io/v1", "TokenReview", field(2, msg(field(1, "tok"), field(2, "aud")))))["spec"]).toEqual({ token: "tok", audiences: ["aud"] });
  });

  it("rejects non-envelopes and truncated input with a 400 StatusError, never a bare error", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (bytes, prefix) => {
        const body = Buffer.concat([prefix ? Buffer.from("k8s\0", "latin1") : Buffer.alloc(0), Buffer.from(bytes)]);
        try {
          decodeProtobufReview(body);
        } catch (e) {
          expect(isStatusError(e) && e.status.code === 400).toBe(true);
        }
      }),
    );
    expect(() => decodeProtobufReview(Buffer.from("{}"))).toThrow("missing the k8s envelope prefix");
  });
});
