// grpc-js call helpers of the node agent's CSI clients; the protos come from @skiff/csi-api.
import * as grpc from "@grpc/grpc-js";

type ServiceCtor = grpc.ServiceClientConstructor;

/** `unix:///path`, `unix:path` or a bare path → a grpc-js target. */
export function grpcTarget(endpoint: string): string {
  if (endpoint.startsWith("unix://")) return `unix://${endpoint.slice("unix://".length)}`;
  if (endpoint.startsWith("unix:")) return `unix:${endpoint.slice("unix:".length)}`;
  return `unix://${endpoint}`;
}

type Callback<R> = (err: grpc.ServiceError | null, res: R) => void;
type UnaryMethod = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<unknown>) => void;

/** Calls a unary method with a deadline; rejects with the grpc ServiceError. */
export function callUnary<R>(client: grpc.Client, method: string, req: unknown, timeoutMs: number): Promise<R> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, UnaryMethod | undefined>)[method];
    if (typeof fn !== "function") {
      reject(new Error(`no gRPC method ${method}`));
      return;
    }
    fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res as R)));
  });
}

export function newClient(ctor: ServiceCtor, endpoint: string): grpc.Client {
  return new ctor(grpcTarget(endpoint), grpc.credentials.createInsecure());
}
