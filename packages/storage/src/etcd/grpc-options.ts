/**
 * The HTTP/2 flow-control window (bytes) the etcd client grants etcd, per stream and for the
 * connection: grpc-go's largest BDP-estimated window (`bdpLimit`, 16 MiB), which clientv3 reaches
 * on a busy watch stream.
 */
export const etcdFlowControlWindowBytes = 16 * 1024 * 1024;

/**
 * The grpc-js channel options of the etcd client, as clientv3's defaults.
 * - `grpc.max_receive_message_length`: `maxCallRecvMsgSize` bytes (clientv3's
 *   `MaxCallRecvMsgSize`, math.MaxInt32 by default). etcd answers a watch's catch-up in batches of
 *   up to 1,000 revisions, each event with its previous value, which passes grpc-js's default
 *   4 MiB with objects of a few KiB; over the limit the stream failed and the client re-opened it
 *   from the same revision forever.
 * - `grpc-node.flow_control_window`: {@link etcdFlowControlWindowBytes}. grpc-js's default is
 *   HTTP/2's 64 KiB, and every watch of a client shares one stream: etcd could send 64 KiB, then
 *   waited for the window update that the busy apiserver sent a loop turn later. With pods of
 *   8 KiB per event (with its previous value) and the whole keyspace watched, events reached the
 *   apiserver seconds after etcd had them (a fleet of 100 hollow nodes: pod created → scheduler
 *   sees it p50 5.5 s).
 * @param maxCallRecvMsgSize bytes, in [1, 2^31 − 1] (checked by the caller)
 * @see go.etcd.io/etcd/client/v3 config.go (MaxCallRecvMsgSize); google.golang.org/grpc internal/transport/bdp_estimator.go (bdpLimit)
 */
export function etcdGrpcOptions(maxCallRecvMsgSize: number): Record<string, number> {
  return { "grpc.max_receive_message_length": maxCallRecvMsgSize, "grpc-node.flow_control_window": etcdFlowControlWindowBytes };
}
