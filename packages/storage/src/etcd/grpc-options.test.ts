import { describe, expect, it } from "vitest";
import { etcdFlowControlWindowBytes, etcdGrpcOptions } from "./grpc-options.js";

describe("etcdGrpcOptions", () => {
  it("takes messages up to the given size and grants etcd grpc-go's largest window (16 MiB), not HTTP/2's 64 KiB", () => {
    expect(etcdGrpcOptions(2 ** 31 - 1)).toEqual({ "grpc.max_receive_message_length": 2 ** 31 - 1, "grpc-node.flow_control_window": 16 * 1024 * 1024 });
    expect(etcdGrpcOptions(1024)["grpc.max_receive_message_length"]).toBe(1024);
    expect(etcdFlowControlWindowBytes).toBeGreaterThan(65_535);
  });
});
