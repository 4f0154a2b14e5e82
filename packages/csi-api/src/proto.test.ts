import { describe, expect, it } from "vitest";
import { loadCSIProtos } from "./proto.js";

describe("loadCSIProtos", () => {
  it("returns the three services with the methods Skiff uses, loaded once", () => {
    const protos = loadCSIProtos();
    expect(Object.keys(protos.Identity.service).sort()).toEqual(["GetPluginCapabilities", "GetPluginInfo", "Probe"]);
    expect(Object.keys(protos.Node.service).sort()).toEqual(["NodeGetCapabilities", "NodeGetInfo", "NodePublishVolume", "NodeUnpublishVolume"]);
    expect(Object.keys(protos.Registration.service).sort()).toEqual(["GetInfo", "NotifyRegistrationStatus"]);
    expect(protos.Node.service.NodePublishVolume?.path).toBe("/csi.v1.Node/NodePublishVolume");
    expect(protos.Registration.service.GetInfo?.path).toBe("/pluginregistration.Registration/GetInfo");
    expect(loadCSIProtos()).toBe(protos);
  });

  it("decodes with camelCase fields, enum names and defaults", () => {
    const { Node } = loadCSIProtos();
    const info = Node.service.NodeGetCapabilities!;
    const bytes = info.responseSerialize({ capabilities: [{ rpc: { type: "GET_VOLUME_STATS" } }] });
    expect(info.responseDeserialize(bytes)).toEqual({ capabilities: [{ rpc: { type: "GET_VOLUME_STATS" }, type: "rpc" }] });
    const getInfo = Node.service.NodeGetInfo!;
    const decoded = getInfo.responseDeserialize(getInfo.responseSerialize({ nodeId: "n1", maxVolumesPerNode: 7 })) as Record<string, unknown>;
    expect(decoded).toMatchObject({ nodeId: "n1", maxVolumesPerNode: 7 });
  });
});
