import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public exports", () => {
  it("keeps the field-error and name exports other packages build on", () => {
    for (const name of [
      "FieldErrorType",
      "FieldPath",
      "fieldPath",
      "formatFieldError",
      "formatFieldErrorBody",
      "required",
      "invalid",
      "notSupported",
      "duplicate",
      "forbidden",
      "tooLong",
      "tooMany",
      "notFound",
      "internalError",
      "isQualifiedName",
      "isValidLabelValue",
      "isDNS1123Label",
      "isDNS1123Subdomain",
      "isDNS1035Label",
      "isEnvVarName",
      "isValidPortName",
      "isValidPortNum",
    ]) {
      expect(api, name).toHaveProperty(name);
    }
  });

  it("exposes the machinery the brief names", () => {
    for (const name of [
      "parseLabelSelector",
      "labelSelectorAsSelector",
      "formatLabelSelector",
      "parseFieldSelector",
      "StatusError",
      "statusReasonCodes",
      "newNotFound",
      "newConflict",
      "newInvalid",
      "errorToStatus",
      "isStatusError",
      "applyJSONPatch",
      "applyMergePatch",
      "createMergePatch",
      "applyStrategicMergePatch",
      "patchSchemaFromOpenAPI",
      "parseResourceVersion",
      "formatResourceVersion",
      "encodeContinue",
      "decodeContinue",
      "formatWatchEvent",
      "WatchEventDecoder",
      "newBookmarkEvent",
      "qualifiedResource",
    ]) {
      expect(typeof (api as Record<string, unknown>)[name], name).toMatch(/function|object/);
    }
  });
});
