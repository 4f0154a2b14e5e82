/** The node agent's image garbage collection (the kubelet's `pkg/kubelet/images` image GC manager). */
export { ImageGCError, ImageGCManager, planImageRemoval } from "./image-gc-manager.js";
export type { ImageGCManagerOptions, ImageGCPolicy, ImageRecord } from "./image-gc-manager.js";
