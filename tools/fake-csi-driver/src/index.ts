/**
 * @skiff/fake-csi-driver: a small CSI v1 driver (Identity + Node) with a kubelet
 * plugin-registration socket, for tests of the node agent's CSI support.
 */
export { readPublishRecords, startFakeCsiDriver, volumeContextFileName } from "./fake-driver.js";
export type { FakeCsiCall, FakeCsiDriver, FakeCsiDriverOptions, FakePublishRecord, FakeRegistrationStatus } from "./fake-driver.js";
