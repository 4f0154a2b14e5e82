import { describe, expect, it } from "vitest";
import { decodeContainerAllocateResponse, encodeContainerAllocateResponse, loadDevicePluginAPI } from "./api.js";

describe("device plugin API v1beta1", () => {
  it("encodes RegisterRequest as api.proto on the wire (version 1, endpoint 2, resource_name 3, options 4)", () => {
    const bytes = loadDevicePluginAPI().Registration.service.Register?.requestSerialize({ version: "v", endpoint: "e", resourceName: "r", options: { preStartRequired: true } });
    expect([...(bytes ?? [])]).toEqual([0x0a, 0x01, 0x76, 0x12, 0x01, 0x65, 0x1a, 0x01, 0x72, 0x22, 0x02, 0x08, 0x01]);
  });

  it("round-trips a ContainerAllocateResponse through its checkpoint bytes (maps, mounts, devices)", () => {
    const r = { envs: { A: "1" }, mounts: [{ containerPath: "/c", hostPath: "/h", readOnly: true }], devices: [{ containerPath: "/dev/x", hostPath: "/dev/y", permissions: "rw" }], annotations: { k: "v".repeat(200) } };
    const bytes = encodeContainerAllocateResponse(r);
    // envs (field 1) is a map entry: tag 0x0a.
    expect(bytes[0]).toBe(0x0a);
    expect(decodeContainerAllocateResponse(bytes)).toEqual(r);
  });
});
