/**
 * The table of the controller manager's controllers, in start order. A controller is its folder
 * under `controllers/<name>/` plus one row here.
 *
 * @see cmd/kube-controller-manager/app/controllermanager.go (NewControllerInitializers)
 */
import type { ControllerInitializer } from "./controller-manager.js";
import { jobControllerInitializer } from "./controllers/job/job-controller.js";
import { nodeLifecycleControllerInitializer } from "./controllers/nodelifecycle/node-lifecycle-controller.js";
import { ttlAfterFinishedControllerInitializer } from "./controllers/ttlafterfinished/ttl-after-finished-controller.js";

/** Every controller this binary knows; `--controllers` selects among their names. */
export const controllerInitializers: readonly ControllerInitializer[] = [
  jobControllerInitializer,
  ttlAfterFinishedControllerInitializer,
  nodeLifecycleControllerInitializer,
];
