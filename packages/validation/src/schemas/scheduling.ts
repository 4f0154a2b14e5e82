import type { PriorityClass, PriorityClassList } from "@skiff/api-types";
import type { z } from "zod";
import { kindEnvelope, kindListOf } from "./meta.js";
import { bool, int32, objectOf, openEnum, str } from "./primitives.js";

/** `scheduling.k8s.io/v1` PriorityClass (an absent `value` decodes as 0, Go's zero value). */
export const priorityClassSchema = objectOf<PriorityClass>()("PriorityClass", {
  ...kindEnvelope(),
  value: int32(),
  globalDefault: bool().exactOptional(),
  description: str().exactOptional(),
  preemptionPolicy: openEnum<NonNullable<PriorityClass["preemptionPolicy"]>>().exactOptional(),
}) satisfies z.ZodType<PriorityClass>;

/** `scheduling.k8s.io/v1` PriorityClassList. */
export const priorityClassListSchema = kindListOf<PriorityClassList>()("PriorityClassList", priorityClassSchema) satisfies z.ZodType<PriorityClassList>;
